package controllerutil_test

import (
	"context"
	"errors"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appslisters "k8s.io/client-go/listers/apps/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller/controllertest"
	"github.com/ctrlkit/ctrlkit/controller/controllerutil"
)

func newDeployment(name string) *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
}

func setReplicas(n int32) func(*appsv1.Deployment) error {
	return func(d *appsv1.Deployment) error {
		d.Spec.Replicas = ptr.To(n)
		return nil
	}
}

// writes returns the verbs (and subresources) of the client's writes so far.
func writes(actions []clienttesting.Action) []string {
	var verbs []string
	for _, a := range actions {
		if a.GetVerb() == "get" || a.GetVerb() == "list" || a.GetVerb() == "watch" {
			continue
		}
		v := a.GetVerb()
		if a.GetSubresource() != "" {
			v += "/" + a.GetSubresource()
		}
		verbs = append(verbs, v)
	}
	return verbs
}

func TestCreateOrUpdate(t *testing.T) {
	client := controllertest.NewClientset()
	deployments := client.AppsV1().Deployments("ns")
	ctx := context.Background()

	for _, step := range []struct {
		replicas int32
		want     controllerutil.OperationResult
	}{{2, controllerutil.OperationResultCreated}, {2, controllerutil.OperationResultNone}, {3, controllerutil.OperationResultUpdated}} {
		d, result, err := controllerutil.CreateOrUpdate(ctx, deployments, newDeployment("web"), setReplicas(step.replicas))
		if err != nil || result != step.want || *d.Spec.Replicas != step.replicas {
			t.Errorf("replicas %d: %v, %v, replicas %v; want %v", step.replicas, result, err, d.Spec.Replicas, step.want)
		}
	}
	if got := writes(client.Actions()); len(got) != 2 || got[0] != "create" || got[1] != "update" {
		t.Errorf("writes %v, want create, update", got)
	}

	boom := errors.New("boom")
	if _, _, err := controllerutil.CreateOrUpdate(ctx, deployments, newDeployment("web"), func(*appsv1.Deployment) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("mutate's error: got %v", err)
	}
	rename := func(d *appsv1.Deployment) error { d.Name = "elsewhere"; return nil }
	for _, name := range []string{"web", "new"} {
		if _, _, err := controllerutil.CreateOrUpdate(ctx, deployments, newDeployment(name), rename); err == nil {
			t.Errorf("%s: mutate renaming the object succeeded, want an error", name)
		}
	}
}

// Reads from the cache, and a stale cache makes the write conflict rather
// than overwrite what it has not seen.
func TestCreateOrUpdateCached(t *testing.T) {
	client := controllertest.NewClientset()
	ctx := context.Background()
	if _, err := client.AppsV1().Deployments("ns").Create(ctx, newDeployment("web"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	stored, _ := client.AppsV1().Deployments("ns").Get(ctx, "web", metav1.GetOptions{})
	_ = indexer.Add(stored)
	cachedLister := appslisters.NewDeploymentLister(indexer) // an informer's store, frozen
	c := controllerutil.Cached(cachedLister.Deployments("ns"), client.AppsV1().Deployments("ns"))
	client.ClearActions()

	if _, result, err := controllerutil.CreateOrUpdate(ctx, c, newDeployment("web"), setReplicas(2)); err != nil || result != controllerutil.OperationResultUpdated {
		t.Fatalf("first write: %v, %v", result, err)
	}
	for _, a := range client.Actions() {
		if a.GetVerb() == "get" {
			t.Errorf("Cached sent a GET: %v", a)
		}
	}
	// The cache still holds the old resourceVersion.
	if _, _, err := controllerutil.CreateOrUpdate(ctx, c, newDeployment("web"), setReplicas(3)); !apierrors.IsConflict(err) {
		t.Errorf("write from a stale cache: %v, want Conflict", err)
	}
	if cached, _ := cachedLister.Deployments("ns").Get("web"); cached.Spec.Replicas != nil {
		t.Error("CreateOrUpdate modified the cached object")
	}
}

func TestCreateOrPatch(t *testing.T) {
	client := controllertest.NewClientset()
	deployments := client.AppsV1().Deployments("ns")
	ctx := context.Background()
	steps := []struct {
		name   string
		mutate func(*appsv1.Deployment) error
		want   controllerutil.OperationResult
		writes []string
	}{
		{"create", setReplicas(1), controllerutil.OperationResultCreated, []string{"create"}},
		{"same", setReplicas(1), controllerutil.OperationResultNone, nil},
		{"spec", setReplicas(2), controllerutil.OperationResultUpdated, []string{"patch"}},
		{"status only", func(d *appsv1.Deployment) error { d.Status.ObservedGeneration = 5; return nil }, controllerutil.OperationResultUpdatedStatusOnly, []string{"patch/status"}},
		{"both", func(d *appsv1.Deployment) error {
			d.Spec.Replicas, d.Status.ObservedGeneration = ptr.To[int32](4), 6
			return nil
		}, controllerutil.OperationResultUpdatedStatus, []string{"patch", "patch/status"}},
	}
	for _, s := range steps {
		client.ClearActions()
		d, result, err := controllerutil.CreateOrPatch(ctx, deployments, newDeployment("web"), s.mutate)
		if err != nil || result != s.want {
			t.Errorf("%s: %v, %v; want %v", s.name, result, err, s.want)
		}
		if got := writes(client.Actions()); !equalStrings(got, s.writes) {
			t.Errorf("%s: writes %v, want %v", s.name, got, s.writes)
		}
		if d == nil || d.Name != "web" {
			t.Errorf("%s: returned %v", s.name, d)
		}
	}
	final, _ := deployments.Get(ctx, "web", metav1.GetOptions{})
	if *final.Spec.Replicas != 4 || final.Status.ObservedGeneration != 6 {
		t.Errorf("stored replicas %d, observedGeneration %d; want 4, 6", *final.Spec.Replicas, final.Status.ObservedGeneration)
	}
	var patch []byte
	for _, a := range client.Actions() {
		if p, ok := a.(clienttesting.PatchAction); ok && a.GetSubresource() == "" {
			patch = p.GetPatch()
		}
	}
	if string(patch) != `{"spec":{"replicas":4}}` {
		t.Errorf("object patch %s, want only the changed field", patch)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
