//go:build e2e

package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// TestWebAppWebhooksTwoReplicasE2E runs two replicas of the operator
// behind one address (tcpProxy, standing in for the Service) while
// clients create and update WebApps through the webhooks, then kills the
// replica that is not elected, starts another, and kills the elected one.
// It checks that both replicas serve, that only the elected one writes
// the caBundle (and the Secret), and that the clients see no error: a
// killed replica refuses new connections, answers the requests it has
// and one more on each kept-alive connection, with "Connection: close",
// and the API server's next connection goes to a replica still
// listening.
//
// The proxy listens on a non-loopback address: the API server calls a
// loopback URL over HTTP/2, one connection that would reach one replica
// only, and everything else over HTTP/1.1, as it calls a Service.
func TestWebAppWebhooksTwoReplicasE2E(t *testing.T) {
	host := nonLoopbackIP(t)
	env, kube := startOperatorEnv(t, nil, "shop")
	proxy := startTCPProxy(t, host)
	start := func(name string) *webhookReplica {
		r := &webhookReplica{name: name}
		r.mgr, r.stop = runWebhookOperator(t, r.countCertWrites(env.RESTConfig()), r.created, "--webhook-host-names="+host)
		return r
	}
	a, b := start("a"), start("b")
	installWebhooks(t, kube, proxy.Addr())
	pointConversionAt(t, env.RESTConfig(), proxy.Addr())
	for _, r := range []*webhookReplica{a, b} {
		r.joinWhenReady(t, proxy)
	}
	leader, follower := electedOf(t, a, b)

	load := startWebAppLoad(t, env.RESTConfig(), 3)
	waitServed(t, "both replicas to serve", leader, follower)

	follower.stop()
	t.Logf("killed %s, which was not elected, after it served %d requests", follower.name, follower.served(t))
	c := start("c")
	c.joinWhenReady(t, proxy)
	// The API server keeps its connections to the leader alive, so c gets
	// requests only once the leader closes them.
	waitServed(t, "the elected replica to serve on", leader)

	leader.stop()
	t.Logf("killed %s, the elected one, after it served %d requests", leader.name, leader.served(t))
	testutil.Eventually(t, time.Minute, c.name+" to be elected", testutil.True(c.elected))
	waitServed(t, "the last replica to serve", c)

	requests, failures := load.stop()
	t.Logf("%d requests through the webhooks, %d failed; served: %s %d, %s %d, %s %d",
		requests, failures, a.name, a.served(t), b.name, b.served(t), c.name, c.served(t))
	if failures > 0 {
		t.Errorf("%d of %d requests failed across two kills", failures, requests)
	}
	for _, r := range []*webhookReplica{a, b, c} {
		if n := r.unelectedWrites.Load(); n > 0 {
			t.Errorf("%s wrote the caBundle or the Secret %d times while not elected", r.name, n)
		}
	}
	if leader.certWrites.Load() == 0 {
		t.Errorf("%s, elected, never wrote the caBundle", leader.name)
	}
	if n := follower.certWrites.Load(); n > 0 {
		t.Errorf("%s, never elected, wrote the caBundle or the Secret %d times", follower.name, n)
	}
}

// webhookReplica is one replica of the operator, with the writes it made
// of the caBundle (the webhook configurations) and of the certificates'
// Secret, which only the elected replica may make.
type webhookReplica struct {
	name string
	mgr  *manager.Manager
	stop func()

	running         atomic.Pointer[manager.Manager] // set before Run
	certWrites      atomic.Int64
	unelectedWrites atomic.Int64
}

func (r *webhookReplica) created(mgr *manager.Manager) { r.running.Store(mgr) }

// elected is whether the replica's manager has won the election.
func (r *webhookReplica) elected() bool {
	mgr := r.running.Load()
	if mgr == nil {
		return false
	}
	select {
	case <-mgr.Elected():
		return true
	default:
		return false
	}
}

// countCertWrites returns cfg with a transport that counts the replica's
// writes of webhook configurations and Secrets, and those made while it
// was not elected.
func (r *webhookReplica) countCertWrites(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			path := req.URL.Path
			if req.Method != http.MethodGet && (strings.HasSuffix(path, "webhookconfigurations") || strings.Contains(path, "webhookconfigurations/") ||
				strings.HasSuffix(path, "/secrets") || strings.Contains(path, "/secrets/")) {
				r.certWrites.Add(1)
				if !r.elected() {
					r.unelectedWrites.Add(1)
				}
			}
			return rt.RoundTrip(req)
		})
	})
	return cfg
}

// joinWhenReady adds the replica to proxy once its /readyz passes (the
// served certificate verifies against the caBundles), as endpoints add a
// pod once it is ready.
func (r *webhookReplica) joinWhenReady(t *testing.T, proxy *tcpProxy) {
	testutil.Eventually(t, time.Minute, r.name+"'s /readyz/webhook-certificates to pass", func(context.Context) (bool, error) {
		got := readyz(t, r.mgr)
		return got == "", errors.New(got)
	})
	proxy.add(r.mgr.GetWebhookServer().Addr())
}

// served is the number of admission requests the replica has answered,
// from its webhook metrics.
func (r *webhookReplica) served(t *testing.T) int {
	families, err := r.mgr.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n float64
	for _, f := range families {
		if f.GetName() == "controller_runtime_webhook_requests_total" {
			for _, m := range f.GetMetric() {
				n += m.GetCounter().GetValue()
			}
		}
	}
	return int(n)
}

// waitServed waits until each replica has served 50 more requests than
// when it was called.
func waitServed(t *testing.T, what string, replicas ...*webhookReplica) {
	t.Helper()
	before := make([]int, len(replicas))
	for i, r := range replicas {
		before[i] = r.served(t)
	}
	testutil.Eventually(t, time.Minute, what, func(context.Context) (bool, error) {
		var counts []string
		done := true
		for i, r := range replicas {
			n := r.served(t) - before[i]
			done = done && n >= 50
			counts = append(counts, fmt.Sprintf("%s %d", r.name, n))
		}
		return done, fmt.Errorf("served since: %s", strings.Join(counts, ", "))
	})
}

// electedOf waits until one of a and b is elected and returns it first.
func electedOf(t *testing.T, a, b *webhookReplica) (leader, follower *webhookReplica) {
	t.Helper()
	testutil.Eventually(t, time.Minute, "a replica to be elected", testutil.True(func() bool { return a.elected() || b.elected() }))
	if a.elected() {
		return a, b
	}
	return b, a
}

// nonLoopbackIP is an IPv4 address of this machine that is not loopback,
// or skips the test if there is none.
func nonLoopbackIP(t *testing.T) string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			return n.IP.String()
		}
	}
	t.Skip("no non-loopback IPv4 address: the API server would call the webhooks over one HTTP/2 connection")
	return ""
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
