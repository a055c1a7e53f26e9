package main

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller/controllertest"
	"github.com/ctrlkit/ctrlkit/examples/configrollout"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestControllersFlag(t *testing.T) {
	tests := []struct {
		flag string
		want []string
		err  string
	}{
		{"", []string{"deployment", "configrollout"}, ""},
		{"--controllers=*", []string{"deployment", "configrollout"}, ""},
		{"--controllers=*,-configrollout", []string{"deployment"}, ""},
		{"--controllers=configrollout", []string{"configrollout"}, ""},
		{"--controllers=deployment, configrollout", []string{"deployment", "configrollout"}, ""},
		{"--controllers=-deployment", nil, "enables no controller"},
		{"--controllers=*,replicaset", nil, `unknown controller "replicaset"`},
	}
	for _, tt := range tests {
		var args []string
		if tt.flag != "" {
			args = []string{tt.flag}
		}
		o, err := parseOptions(args, io.Discard)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: error %v, want %q", tt.flag, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.flag, err)
			continue
		}
		got, _ := o.enabled()
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%q: enabled (-want +got):\n%s", tt.flag, diff)
		}
	}
	if _, err := parseOptions([]string{"--concurrent-configrollout-syncs=0"}, io.Discard); err == nil ||
		!strings.Contains(err.Error(), "--concurrent-configrollout-syncs must be at least 1") {
		t.Errorf("zero workers: %v", err)
	}
}

// TestTwoControllersOneProcess runs both controllers under one manager on a
// fake cluster: a ConfigMap change makes configrollout stamp the template,
// and the Deployment controller then creates the ReplicaSet for it.
func TestTwoControllersOneProcess(t *testing.T) {
	labels := map[string]string{"app": "web"}
	web := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "web-uid", Generation: 1,
			Annotations: map[string]string{configrollout.EnabledAnnotation: "true"}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{{
				Name: "web", Image: "web:1",
				EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web"}}}},
			}}}},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
				MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromInt32(0))}},
			RevisionHistoryLimit:    ptr.To[int32](10),
			ProgressDeadlineSeconds: ptr.To[int32](600),
		},
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}, Data: map[string]string{"MODE": "a"}}
	// Two controllers write this Deployment: conflicts must be real.
	client := controllertest.NewClientset(web, cm)

	o, err := parseOptions([]string{"--leader-elect-resource-namespace=ctrlkit-system", "--metrics-bind-address=127.0.0.1:0", "--health-probe-bind-address=0"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mgr, err := newManager(ctx, o, client)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	}()

	poll := func(what string, cond func() bool) {
		t.Helper()
		if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true,
			func(context.Context) (bool, error) { return cond(), nil }); err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
	}
	replicaSets := func() []appsv1.ReplicaSet {
		list, err := client.AppsV1().ReplicaSets("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return list.Items
	}
	poll("the first ReplicaSet", func() bool { return len(replicaSets()) == 1 })
	poll("configrollout's adoption", func() bool {
		d, err := client.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
		return err == nil && d.Annotations[configrollout.ObservedHashAnnotation] != ""
	})
	// The fake clientset drops changes made before a watch starts.
	poll("the ConfigMap watch", func() bool {
		return slices.ContainsFunc(client.Actions(), func(a k8stesting.Action) bool {
			return a.GetVerb() == "watch" && a.GetResource().Resource == "configmaps"
		})
	})

	cm.Data["MODE"] = "b"
	if _, err := client.CoreV1().ConfigMaps("default").Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll("a second ReplicaSet, for the stamped template", func() bool {
		return slices.ContainsFunc(replicaSets(), func(rs appsv1.ReplicaSet) bool {
			return rs.Spec.Template.Annotations[configrollout.HashAnnotation] != ""
		})
	})

	leases, err := client.CoordinationV1().Leases("").List(ctx, metav1.ListOptions{})
	if err != nil || len(leases.Items) != 1 || leases.Items[0].Namespace != "ctrlkit-system" || leases.Items[0].Name != component {
		t.Errorf("leases = %+v, %v; want the one Lease ctrlkit-system/%s", leases, err, component)
	}
	resp, err := http.Get("http://" + mgr.MetricsAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, name := range []string{"deployment", "configrollout"} {
		if !strings.Contains(string(body), `controller_runtime_reconcile_total{controller="`+name+`"`) {
			t.Errorf("/metrics has no reconcile counts for %s", name)
		}
	}
}
