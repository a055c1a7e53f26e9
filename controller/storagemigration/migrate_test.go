package storagemigration

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"
)

var widgets = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

// newClient is a fake dynamic client holding the CRD of widgets (v1
// stored, storedVersions as given) and n widgets.
func newClient(storedVersions []string, n int) *fake.FakeDynamicClient {
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets.example.com", "generation": int64(2)},
		"spec": map[string]any{"group": "example.com", "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "kind": "Widget"},
			"versions": []any{
				map[string]any{"name": "v1alpha1", "served": true, "storage": false},
				map[string]any{"name": "v1", "served": true, "storage": true},
			}},
	}}
	_ = unstructured.SetNestedStringSlice(crd.Object, storedVersions, "status", "storedVersions")
	objs := []runtime.Object{crd}
	for i := range n {
		objs = append(objs, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": fmt.Sprintf("w-%d", i), "namespace": "ns", "resourceVersion": "1"},
		}})
	}
	return fake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		crdResource: "CustomResourceDefinitionList",
		widgets:     "WidgetList",
		svmResource: "StorageVersionMigrationList",
	}, objs...)
}

// svmNotServed makes the fake answer 404 for StorageVersionMigrations, as
// an API server that does not serve them.
func svmNotServed(client *fake.FakeDynamicClient) {
	client.PrependReactor("*", "storageversionmigrations", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewNotFound(svmResource.GroupResource(), "")
	})
}

func crdOf(t *testing.T, client *fake.FakeDynamicClient) *crdState {
	t.Helper()
	obj, err := client.Resource(crdResource).Get(t.Context(), "widgets.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := parseCRD(obj)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func patches(client *fake.FakeDynamicClient) int {
	n := 0
	for _, a := range client.Actions() {
		if a.GetVerb() == "patch" && a.GetResource() == widgets {
			n++
		}
	}
	return n
}

// Where StorageVersionMigrations are not served, Auto patches every
// object (one changed and one deleted since the list count as done),
// prunes storedVersions, and shows it in the condition and in events.
func TestListAndPatch(t *testing.T) {
	client := newClient([]string{"v1alpha1", "v1"}, 250)
	svmNotServed(client)
	client.PrependReactor("patch", "widgets", func(a k8stesting.Action) (bool, runtime.Object, error) {
		switch a.(k8stesting.PatchAction).GetName() {
		case "w-3":
			return true, nil, apierrors.NewConflict(widgets.GroupResource(), "w-3", errors.New("changed"))
		case "w-4":
			return true, nil, apierrors.NewNotFound(widgets.GroupResource(), "w-4")
		}
		return false, nil, nil
	})
	rec := &recorder{}
	if err := Migrate(t.Context(), client, "widgets.example.com", Options{Recorder: rec}); err != nil {
		t.Fatal(err)
	}
	if n := patches(client); n != 250 {
		t.Errorf("%d patches, want 250", n)
	}
	crd := crdOf(t, client)
	if !slices.Equal(crd.storedVersions, []string{"v1"}) {
		t.Errorf("storedVersions = %v, want [v1]", crd.storedVersions)
	}
	if c := condition(crd.obj, StorageMigrating); c["status"] != "False" || c["reason"] != "MigrationSucceeded" {
		t.Errorf("StorageMigrating = %v, want False, MigrationSucceeded", c)
	}
	want := []string{ReasonStarted, ReasonProgress, ReasonStoredVersionsPruned, ReasonSucceeded}
	if got := rec.reasons(); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
}

// A patch that fails otherwise fails the migration: storedVersions stay,
// the condition says why.
func TestListAndPatchFails(t *testing.T) {
	client := newClient([]string{"v1alpha1", "v1"}, 3)
	client.PrependReactor("patch", "widgets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewInternalError(errors.New("conversion webhook down"))
	})
	err := Migrate(t.Context(), client, "widgets.example.com", Options{Method: ListAndPatch})
	if err == nil || !strings.Contains(err.Error(), "conversion webhook down") {
		t.Fatalf("Migrate = %v, want the patch's error", err)
	}
	crd := crdOf(t, client)
	if !slices.Equal(crd.storedVersions, []string{"v1alpha1", "v1"}) {
		t.Errorf("storedVersions = %v, want them unchanged", crd.storedVersions)
	}
	if c := condition(crd.obj, StorageMigrating); c["status"] != "False" || c["reason"] != "MigrationFailed" {
		t.Errorf("StorageMigrating = %v, want False, MigrationFailed", c)
	}
}

// With storedVersions pruned already, Migrate only reads the CRD.
func TestAlreadyMigrated(t *testing.T) {
	client := newClient([]string{"v1"}, 3)
	rec := &recorder{}
	if err := Migrate(t.Context(), client, "widgets.example.com", Options{Recorder: rec}); err != nil {
		t.Fatal(err)
	}
	if a := client.Actions(); len(a) != 1 || a[0].GetVerb() != "get" {
		t.Errorf("actions %v, want one get", a)
	}
	if len(rec.reasons()) != 0 {
		t.Errorf("events %v, want none", rec.reasons())
	}
}

// A CRD whose spec changes during the migration keeps its storedVersions.
func TestSpecChanged(t *testing.T) {
	client := newClient([]string{"v1alpha1", "v1"}, 1)
	var once sync.Once
	client.PrependReactor("patch", "widgets", func(k8stesting.Action) (bool, runtime.Object, error) {
		once.Do(func() {
			crd, _ := client.Tracker().Get(crdResource, "", "widgets.example.com")
			u := crd.(*unstructured.Unstructured)
			u.SetGeneration(3)
			_ = client.Tracker().Update(crdResource, u, "")
		})
		return false, nil, nil
	})
	err := Migrate(t.Context(), client, "widgets.example.com", Options{Method: ListAndPatch})
	if !errors.Is(err, errSpecChanged) {
		t.Fatalf("Migrate = %v, want errSpecChanged", err)
	}
	crd := crdOf(t, client)
	if !slices.Equal(crd.storedVersions, []string{"v1alpha1", "v1"}) {
		t.Errorf("storedVersions = %v, want them unchanged", crd.storedVersions)
	}
	if c := condition(crd.obj, StorageMigrating); c["status"] != "False" || c["reason"] != "MigrationFailed" || !strings.Contains(c["message"].(string), "spec changed") {
		t.Errorf("StorageMigrating = %v, want False, MigrationFailed, saying the spec changed", c)
	}
}

// Where StorageVersionMigrations are served, Auto creates one named after
// the CRD and its generation, waits until it has succeeded, and prunes
// storedVersions if the controller has not. It patches nothing itself.
func TestStorageVersionMigration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := newClient([]string{"v1alpha1", "v1"}, 3)
		succeedWhenRead(client, 2)
		rec := &recorder{}
		if err := Migrate(t.Context(), client, "widgets.example.com", Options{Recorder: rec}); err != nil {
			t.Fatal(err)
		}
		svm, err := client.Resource(svmResource).Get(t.Context(), "widgets.example.com-2", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if gr, _, _ := unstructured.NestedStringMap(svm.Object, "spec", "resource"); gr["group"] != "example.com" || gr["resource"] != "widgets" {
			t.Errorf("spec.resource = %v, want example.com widgets", gr)
		}
		if n := patches(client); n != 0 {
			t.Errorf("%d patches, want none", n)
		}
		if crd := crdOf(t, client); !slices.Equal(crd.storedVersions, []string{"v1"}) {
			t.Errorf("storedVersions = %v, want [v1]", crd.storedVersions)
		}
		want := []string{ReasonStarted, ReasonProgress, ReasonStoredVersionsPruned, ReasonSucceeded}
		if got := rec.reasons(); !slices.Equal(got, want) {
			t.Errorf("events %v, want %v", got, want)
		}
	})
}

// A migration that an earlier call left failed is started again, once; if
// it fails again, Migrate says so.
func TestStorageVersionMigrationFailed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := newClient([]string{"v1alpha1", "v1"}, 3)
		failed := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "storagemigration.k8s.io/v1", "kind": "StorageVersionMigration",
			"metadata": map[string]any{"name": "widgets.example.com-2", "uid": "old"},
			"status":   map[string]any{"conditions": []any{map[string]any{"type": "Failed", "status": "True", "message": "boom"}}},
		}}
		if err := client.Tracker().Create(svmResource, failed, ""); err != nil {
			t.Fatal(err)
		}
		creates := 0
		client.PrependReactor("create", "storageversionmigrations", func(a k8stesting.Action) (bool, runtime.Object, error) {
			creates++
			obj := a.(k8stesting.CreateAction).GetObject().(*unstructured.Unstructured).DeepCopy()
			_ = unstructured.SetNestedSlice(obj.Object, []any{map[string]any{"type": "Failed", "status": "True", "message": "again"}}, "status", "conditions")
			return true, obj, client.Tracker().Create(svmResource, obj, "")
		})
		err := Migrate(t.Context(), client, "widgets.example.com", Options{})
		if err == nil || !strings.Contains(err.Error(), "failed: again") || creates != 1 {
			t.Errorf("Migrate = %v after %d creates, want the second failure after one", err, creates)
		}
	})
}

// succeedWhenRead marks a StorageVersionMigration Succeeded from its
// reads'th read on, as kube-controller-manager would.
func succeedWhenRead(client *fake.FakeDynamicClient, reads int) {
	var n int
	client.PrependReactor("get", "storageversionmigrations", func(a k8stesting.Action) (bool, runtime.Object, error) {
		obj, err := client.Tracker().Get(svmResource, "", a.(k8stesting.GetAction).GetName())
		if err != nil {
			return true, nil, err
		}
		if n++; n >= reads {
			u := obj.(*unstructured.Unstructured).DeepCopy()
			_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"type": "Succeeded", "status": "True"}}, "status", "conditions")
			return true, u, nil
		}
		return true, obj, nil
	})
}

// recorder records the events' reasons.
type recorder struct {
	mu  sync.Mutex
	got []string
}

func (r *recorder) Eventf(_, _ runtime.Object, _, reason, _, _ string, _ ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, reason)
}

func (r *recorder) reasons() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}
