package manager

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"testing/synctest"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
)

// metricValue finds the sample of family name whose labels include want,
// and whether there is one.
func metricValue(t *testing.T, reg prometheus.Gatherer, name string, want map[string]string) (*dto.Metric, bool) {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	metrics:
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			for k, v := range want {
				if labels[k] != v {
					continue metrics
				}
			}
			return m, true
		}
	}
	return nil, false
}

func masterStatus(t *testing.T, reg prometheus.Gatherer, lease string) float64 {
	t.Helper()
	m, ok := metricValue(t, reg, "leader_election_master_status", map[string]string{"name": lease})
	if !ok {
		t.Fatalf("no leader_election_master_status{name=%q}", lease)
	}
	return m.GetGauge().GetValue()
}

// leader_election_master_status{name} is client-go's own gauge, as
// kube-controller-manager exposes it, on the Manager's registry.
func TestLeaderElectionMasterStatus(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := withOptimisticConcurrency(fake.NewClientset())
		opts := leOptions(client, "a", true)
		opts.LeaderElection.Name = "master-status-test" // the gauge is per process and Lease name
		m := mustNew(t, opts)
		if got := masterStatus(t, m.Registry(), "master-status-test"); got != 0 {
			t.Errorf("before Run: %v, want 0", got)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := runInBackground(ctx, m)
		<-m.Elected()
		if got := masterStatus(t, m.Registry(), "master-status-test"); got != 1 {
			t.Errorf("leading: %v, want 1", got)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Run: %v", err)
		}
		if got := masterStatus(t, m.Registry(), "master-status-test"); got != 0 {
			t.Errorf("after Run: %v, want 0", got)
		}
		// A second Manager on the same registry shares the collectors.
		other := opts
		other.Lease.ID, other.LeaderElection.Name = "b", "other-lease"
		other.Registry = m.Registry()
		if _, err := New(other); err != nil {
			t.Fatalf("a second Manager on the registry: %v", err)
		}
		if got := masterStatus(t, m.Registry(), "other-lease"); got != 0 {
			t.Errorf("second lease: %v, want 0", got)
		}
	})
}

// With RESTClientMetrics, every request of a client-go REST client counts.
func TestRESTClientMetrics(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[]}`))
	}))
	defer api.Close()
	m := mustNew(t, Options{Logger: quiet(), RESTClientMetrics: true})
	client, err := kubernetes.NewForConfig(&rest.Config{Host: api.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	host := mustHost(t, api.URL)
	if s, ok := metricValue(t, m.Registry(), "rest_client_requests_total", map[string]string{"code": "200", "method": "GET", "host": host}); !ok || s.GetCounter().GetValue() < 1 {
		t.Errorf("rest_client_requests_total{code=200,method=GET,host=%s} = %v, want at least 1", host, s)
	}
	if s, ok := metricValue(t, m.Registry(), "rest_client_request_duration_seconds", map[string]string{"verb": "GET", "host": host}); !ok || s.GetHistogram().GetSampleCount() < 1 {
		t.Errorf("rest_client_request_duration_seconds{verb=GET,host=%s} = %v, want a sample", host, s)
	}
	// Off by default.
	if _, ok := metricValue(t, mustNew(t, Options{Logger: quiet()}).Registry(), "rest_client_requests_total", nil); ok {
		t.Error("rest_client_requests_total on a Manager without RESTClientMetrics")
	}
}

func mustHost(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}
