package sharding_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr/testr"
	"github.com/prometheus/client_golang/prometheus"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/ctrlkit/ctrlkit/controller/sharding"
)

// cachedObjects reads ctrlkit_shard_cached_objects by resource from reg.
func cachedObjects(t *testing.T, reg prometheus.Gatherer) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "ctrlkit_shard_cached_objects" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["ring"] != "test" {
				t.Errorf("ctrlkit_shard_cached_objects has ring=%q, want test", labels["ring"])
			}
			got[labels["resource"]] = m.GetGauge().GetValue()
		}
	}
	return got
}

// Each sharded informer's store size is a gauge on the ring's registry,
// named by resource: it follows the range as the store does.
func TestInformerReportsItsCacheSize(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := fake.NewClientset()
		var namespaces []string
		for i := range 12 {
			// FNV-1a's high bits hardly depend on the last byte: names that
			// differ only at the end ("ns-1", "ns-2") share a half.
			ns := fmt.Sprintf("%d-ns", i)
			namespaces = append(namespaces, ns)
			if _, err := client.CoreV1().ConfigMaps(ns).Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cm"}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		reg := prometheus.NewRegistry()
		a, err := sharding.New(sharding.Options{
			Client: client, Namespace: "kube-system", Name: "test", ID: "a",
			LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 500 * time.Millisecond,
			Logger: testr.New(t), Registry: reg,
		})
		if err != nil {
			t.Fatal(err)
		}
		b := newRing(t, client, "b")
		ctx, stop := context.WithCancel(t.Context())
		ctxB, stopB := context.WithCancel(ctx)
		var wg sync.WaitGroup
		wg.Go(func() { _ = a.Run(ctx) })
		wg.Go(func() { _ = b.Run(ctxB) })
		factory := informers.NewSharedInformerFactory(client, 0)
		defer func() {
			stop()
			factory.Shutdown()
			wg.Wait()
		}()
		sharding.Informer(factory, &corev1.ConfigMap{},
			sharding.FromClient[*corev1.ConfigMapList](client.CoreV1().ConfigMaps("")), a, sharding.Namespaced)
		sharding.Informer(factory, &appsv1.Deployment{},
			sharding.FromClient[*appsv1.DeploymentList](client.AppsV1().Deployments("")), a, sharding.Namespaced)
		if got := cachedObjects(t, reg); len(got) != 2 || got["configmaps"] != 0 || got["deployments.apps"] != 0 {
			t.Fatalf("before the informers start: %v, want configmaps and deployments.apps at 0", got)
		}
		factory.Start(ctx.Done())

		half := float64(len(namespacesIn(namespaces, sharding.Assign(2)[0])))
		if half == 0 || half == float64(len(namespaces)) {
			t.Fatalf("the test's namespaces all hash to one half (%v of %d): pick others", half, len(namespaces))
		}
		waitFor(t, "the gauge to count a's half", func() bool {
			return cachedObjects(t, reg)["configmaps"] == half
		})
		stopB()
		waitFor(t, "the gauge to count everything once b has left", func() bool {
			return cachedObjects(t, reg)["configmaps"] == float64(len(namespaces))
		})
		if got := cachedObjects(t, reg)["deployments.apps"]; got != 0 {
			t.Errorf("deployments.apps = %v, want 0", got)
		}
	})
}
