//go:build e2e

package storagemigration_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"

	"github.com/ctrlkit/ctrlkit/controller/envtest"
	"github.com/ctrlkit/ctrlkit/controller/storagemigration"
	"github.com/ctrlkit/ctrlkit/internal/etcdtest"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

const objects = 500

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// 500 Widgets are stored at v1alpha1, the storage version is switched to
// v1, and a migration is cut short halfway (its context cancelled) and
// run again: etcd then holds every Widget at v1, as read from etcd itself,
// and status.storedVersions is [v1]. A third run changes nothing. Once
// through kube-controller-manager's storage-version-migrator-controller
// (the StorageVersionMigration API, which the local control plane serves),
// once by ListAndPatch.
func TestMigrateE2E(t *testing.T) {
	env := envtest.StartForTest(t, envtest.Options{
		Mode:        envtest.Full,
		Controllers: []string{"garbagecollector", "storage-version-migrator-controller"},
		CRDPaths:    []string{"testdata"},
	})
	client, err := dynamic.NewForConfig(env.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		group  string
		method storagemigration.Method
	}{
		{"svm.example.com", storagemigration.Auto}, // served: StorageVersionMigration
		{"patch.example.com", storagemigration.ListAndPatch},
	} {
		t.Run(c.method.String(), func(t *testing.T) {
			ns := env.Namespace(t)
			crdName := "widgets." + c.group
			widgets := schema.GroupVersionResource{Group: c.group, Resource: "widgets"}
			prefix := "/registry/" + c.group + "/widgets/" + ns + "/"
			createWidgets(t, client, widgets.GroupVersion().WithResource("widgets"), ns)
			if got := storedIn(t, env, prefix); !maps.Equal(got, map[string]int{c.group + "/v1alpha1": objects}) {
				t.Fatalf("etcd holds %v before the switch, want %d at v1alpha1", got, objects)
			}
			switchStorageToV1(t, client, crdName, widgets, ns, env, prefix)

			// Cut short: cancelled at the first progress event.
			ctx, cancel := context.WithCancel(t.Context())
			rec := &recorder{onProgress: cancel}
			err := storagemigration.Migrate(ctx, client, crdName, storagemigration.Options{Method: c.method, Recorder: rec})
			cancel()
			if err == nil {
				t.Fatal("the migration cut short returned nil")
			}
			if got := storedVersions(t, client, crdName); !slices.Equal(got, []string{"v1alpha1", "v1"}) {
				t.Errorf("storedVersions after the cut-short migration = %v, want [v1alpha1 v1]", got)
			}
			t.Logf("cut short (%v): etcd holds %v", err, storedIn(t, env, prefix))

			rec = &recorder{}
			if err := storagemigration.Migrate(t.Context(), client, crdName, storagemigration.Options{Method: c.method, Recorder: rec}); err != nil {
				t.Fatal(err)
			}
			if got := storedIn(t, env, prefix); !maps.Equal(got, map[string]int{c.group + "/v1": objects}) {
				t.Errorf("etcd holds %v after the migration, want %d at v1", got, objects)
			}
			if got := storedVersions(t, client, crdName); !slices.Equal(got, []string{"v1"}) {
				t.Errorf("storedVersions = %v, want [v1]", got)
			}
			if !slices.Contains(rec.reasons(), storagemigration.ReasonSucceeded) {
				t.Errorf("events %v, want %s", rec.reasons(), storagemigration.ReasonSucceeded)
			}
			// kube-controller-manager's migrator prunes storedVersions
			// itself; ListAndPatch leaves it to Migrate.
			if c.method == storagemigration.ListAndPatch {
				if !slices.Contains(rec.reasons(), storagemigration.ReasonStoredVersionsPruned) {
					t.Errorf("events %v, want %s", rec.reasons(), storagemigration.ReasonStoredVersionsPruned)
				}
				if cond := crdCondition(t, client, crdName, "StorageMigrating"); cond["status"] != "False" || cond["reason"] != "MigrationSucceeded" {
					t.Errorf("condition StorageMigrating = %v, want False, MigrationSucceeded", cond)
				}
			}

			rec = &recorder{}
			if err := storagemigration.Migrate(t.Context(), client, crdName, storagemigration.Options{Method: c.method, Recorder: rec}); err != nil || len(rec.reasons()) != 0 {
				t.Errorf("a third run: %v, events %v; want nil and none", err, rec.reasons())
			}
		})
	}
}

// createWidgets creates the Widgets at v1alpha1, several at a time.
func createWidgets(t *testing.T, client dynamic.Interface, gvr schema.GroupVersionResource, ns string) {
	gvr.Version = "v1alpha1"
	names := make(chan string)
	errs := make(chan error, objects)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for name := range names {
				_, err := client.Resource(gvr).Namespace(ns).Create(t.Context(), widget(gvr, name), metav1.CreateOptions{})
				errs <- err
			}
		})
	}
	for i := range objects {
		names <- fmt.Sprintf("w-%03d", i)
	}
	close(names)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func widget(gvr schema.GroupVersionResource, name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": gvr.GroupVersion().String(), "kind": "Widget",
		"metadata": map[string]any{"name": name}, "spec": map[string]any{"size": int64(3)},
	}}
}

// switchStorageToV1 makes v1 the storage version and waits until the API
// server stores there: until a new object lands in etcd at v1.
func switchStorageToV1(t *testing.T, client dynamic.Interface, crdName string, widgets schema.GroupVersionResource, ns string, env *envtest.Environment, prefix string) {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		crd, err := client.Resource(crdResource).Get(t.Context(), crdName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
		for _, v := range versions {
			m := v.(map[string]any)
			m["storage"] = m["name"] == "v1"
		}
		_ = unstructured.SetNestedSlice(crd.Object, versions, "spec", "versions")
		_, err = client.Resource(crdResource).Update(t.Context(), crd, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	widgets.Version = "v1"
	api := client.Resource(widgets).Namespace(ns)
	testutil.Eventually(t, 30*time.Second, "the API server to store new objects at v1", func(ctx context.Context) (bool, error) {
		_ = api.Delete(ctx, "probe", metav1.DeleteOptions{})
		if _, err := api.Create(ctx, widget(widgets, "probe"), metav1.CreateOptions{}); err != nil {
			return false, err
		}
		v := storedAt(t, env, prefix+"probe")
		return v == widgets.GroupVersion().String(), fmt.Errorf("stored at %s", v)
	})
	if err := api.Delete(t.Context(), "probe", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

func storedVersions(t *testing.T, client dynamic.Interface, crdName string) []string {
	crd, err := client.Resource(crdResource).Get(t.Context(), crdName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v, _, _ := unstructured.NestedStringSlice(crd.Object, "status", "storedVersions")
	return v
}

func crdCondition(t *testing.T, client dynamic.Interface, crdName, condType string) map[string]any {
	crd, err := client.Resource(crdResource).Get(t.Context(), crdName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	conditions, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conditions {
		if m := c.(map[string]any); m["type"] == condType {
			return m
		}
	}
	return nil
}

// storedIn counts the objects under the etcd key prefix by the apiVersion
// they are stored at, read from etcd itself.
func storedIn(t *testing.T, env *envtest.Environment, prefix string) map[string]int {
	t.Helper()
	return etcdtest.CountByAPIVersion(t, env.EtcdURL(), prefix)
}

// storedAt is the apiVersion of the object at key in etcd, "" if none.
func storedAt(t *testing.T, env *envtest.Environment, key string) string {
	t.Helper()
	values := etcdtest.Values(t, env.EtcdURL(), key, false)
	if len(values) == 0 {
		return ""
	}
	return etcdtest.APIVersion(t, values[0])
}

// recorder records event reasons, and calls onProgress at the first
// progress event.
type recorder struct {
	mu         sync.Mutex
	got        []string
	onProgress func()
}

func (r *recorder) Eventf(_, _ runtime.Object, _, reason, _, _ string, _ ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, reason)
	if reason == storagemigration.ReasonProgress && r.onProgress != nil {
		r.onProgress()
		r.onProgress = nil
	}
}

func (r *recorder) reasons() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}
