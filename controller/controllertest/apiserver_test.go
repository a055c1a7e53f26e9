package controllertest_test

import (
	"context"
	"testing"
	"testing/synctest"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller/controllertest"
)

// newClient returns a fake clientset holding objects, with the API
// server's semantics.
func newClient(t *testing.T, objects ...runtime.Object) *fake.Clientset {
	t.Helper()
	client := fake.NewClientset(objects...)
	controllertest.InstallAPISemantics(client)
	return client
}

func createDeployment(t *testing.T, client *fake.Clientset) *appsv1.Deployment {
	t.Helper()
	d, err := client.AppsV1().Deployments("ns").Create(context.Background(), &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "d", Generation: 9, Labels: map[string]string{"app": "web"}},
		Spec:       appsv1.DeploymentSpec{Replicas: ptr.To[int32](1)},
		Status:     appsv1.DeploymentStatus{Replicas: 5},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestStaleUpdatesConflict(t *testing.T) {
	ctx := context.Background()
	client := newClient(t)
	deployments := client.AppsV1().Deployments("ns")
	created := createDeployment(t, client)
	if created.ResourceVersion == "" {
		t.Fatal("create stored no resourceVersion")
	}

	fresh := created.DeepCopy()
	fresh.Spec.Replicas = ptr.To[int32](2)
	updated, err := deployments.Update(ctx, fresh, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update from the latest copy: %v", err)
	}
	if updated.ResourceVersion == created.ResourceVersion {
		t.Errorf("update kept resourceVersion %q", updated.ResourceVersion)
	}

	stale := created.DeepCopy()
	stale.Spec.Replicas = ptr.To[int32](7)
	if _, err := deployments.Update(ctx, stale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("update from a stale copy: %v, want a conflict", err)
	}
	if _, err := deployments.UpdateStatus(ctx, stale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("status update from a stale copy: %v, want a conflict", err)
	}
	stalePatch := []byte(`{"metadata":{"resourceVersion":"` + created.ResourceVersion + `"},"spec":{"replicas":7}}`)
	if _, err := deployments.Patch(ctx, "d", types.MergePatchType, stalePatch, metav1.PatchOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("patch with a stale resourceVersion: %v, want a conflict", err)
	}
	got, err := deployments.Get(ctx, "d", metav1.GetOptions{})
	if err != nil || *got.Spec.Replicas != 2 || got.ResourceVersion != updated.ResourceVersion {
		t.Fatalf("after the rejected writes: %v, %v; want the update's replicas 2 at %q", got, err, updated.ResourceVersion)
	}

	// Without a resourceVersion an update is unconditional, as on a server.
	blind := got.DeepCopy()
	blind.ResourceVersion = ""
	blind.Spec.Replicas = ptr.To[int32](3)
	if _, err := deployments.Update(ctx, blind, metav1.UpdateOptions{}); err != nil {
		t.Errorf("update without a resourceVersion: %v", err)
	}
	// A patch that names no resourceVersion applies to the latest.
	patched, err := deployments.Patch(ctx, "d", types.MergePatchType, []byte(`{"spec":{"replicas":4}}`), metav1.PatchOptions{})
	if err != nil || *patched.Spec.Replicas != 4 {
		t.Fatalf("patch: %v, %v", patched, err)
	}
	if patched.ResourceVersion == got.ResourceVersion || patched.ResourceVersion == "" {
		t.Errorf("patch left resourceVersion %q", patched.ResourceVersion)
	}
}

func TestStatusAndSpecAreWrittenSeparately(t *testing.T) {
	ctx := context.Background()
	client := newClient(t)
	deployments := client.AppsV1().Deployments("ns")
	created := createDeployment(t, client)
	if created.Status.Replicas != 0 {
		t.Errorf("create stored status %+v; a server drops it", created.Status)
	}

	// UpdateStatus writes the status only: spec and labels stay.
	status := created.DeepCopy()
	status.Status.Replicas = 3
	status.Spec.Replicas = ptr.To[int32](9)
	status.Labels = map[string]string{"app": "changed"}
	afterStatus, err := deployments.UpdateStatus(ctx, status, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if afterStatus.Status.Replicas != 3 || *afterStatus.Spec.Replicas != 1 || afterStatus.Labels["app"] != "web" {
		t.Errorf("after UpdateStatus: replicas %d/%d, labels %v; want status 3, spec 1, labels kept",
			afterStatus.Status.Replicas, *afterStatus.Spec.Replicas, afterStatus.Labels)
	}

	// Update writes everything but the status.
	spec := afterStatus.DeepCopy()
	spec.Spec.Replicas = ptr.To[int32](2)
	spec.Status.Replicas = 0
	afterUpdate, err := deployments.Update(ctx, spec, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *afterUpdate.Spec.Replicas != 2 || afterUpdate.Status.Replicas != 3 {
		t.Errorf("after Update: spec %d, status %d; want the new spec 2 and the stored status 3",
			*afterUpdate.Spec.Replicas, afterUpdate.Status.Replicas)
	}

	// So does a patch of the main resource.
	patched, err := deployments.Patch(ctx, "d", types.MergePatchType, []byte(`{"status":{"replicas":8}}`), metav1.PatchOptions{})
	if err != nil || patched.Status.Replicas != 3 {
		t.Errorf("patch of status through the main resource: %+v, %v; want the stored status 3", patched.Status, err)
	}
	patched, err = deployments.Patch(ctx, "d", types.MergePatchType, []byte(`{"status":{"replicas":8}}`), metav1.PatchOptions{}, "status")
	if err != nil || patched.Status.Replicas != 8 {
		t.Errorf("patch of the status subresource: %+v, %v; want 8", patched.Status, err)
	}
}

func TestGenerationFollowsSpecChanges(t *testing.T) {
	ctx := context.Background()
	client := newClient(t)
	deployments := client.AppsV1().Deployments("ns")
	d := createDeployment(t, client)
	if d.Generation != 1 {
		t.Fatalf("created at generation %d, want 1", d.Generation)
	}
	write := func(what string, change func(*appsv1.Deployment), update func(context.Context, *appsv1.Deployment, metav1.UpdateOptions) (*appsv1.Deployment, error), want int64) {
		t.Helper()
		next := d.DeepCopy()
		change(next)
		got, err := update(ctx, next, metav1.UpdateOptions{})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got.Generation != want {
			t.Errorf("%s: generation %d, want %d", what, got.Generation, want)
		}
		d = got
	}
	write("spec change", func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](2) }, deployments.Update, 2)
	write("label change", func(d *appsv1.Deployment) { d.Labels["tier"] = "front" }, deployments.Update, 2)
	write("status update", func(d *appsv1.Deployment) { d.Status.ObservedGeneration = 2 }, deployments.UpdateStatus, 2)
	write("generation set by the client", func(d *appsv1.Deployment) { d.Generation = 40 }, deployments.Update, 2)
	write("second spec change", func(d *appsv1.Deployment) { d.Spec.Paused = true }, deployments.Update, 3)

	patched, err := deployments.Patch(ctx, "d", types.MergePatchType, []byte(`{"spec":{"paused":false}}`), metav1.PatchOptions{})
	if err != nil || patched.Generation != 4 {
		t.Errorf("spec patch: generation %d, %v; want 4", patched.Generation, err)
	}

	// Objects without a spec have no generation.
	cm, err := client.CoreV1().ConfigMaps("ns").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{})
	if err != nil || cm.Generation != 0 {
		t.Errorf("ConfigMap created at generation %d, %v; want 0", cm.Generation, err)
	}
}

func TestSeededObjectsWithoutVersionAcceptTheFirstWrite(t *testing.T) {
	ctx := context.Background()
	client := newClient(t, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "seeded", ResourceVersion: "41"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "bare"}})
	seeded, err := client.AppsV1().Deployments("ns").Get(ctx, "seeded", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	updated, err := client.AppsV1().Deployments("ns").Update(ctx, seeded, metav1.UpdateOptions{})
	if err != nil || updated.ResourceVersion != "42" {
		t.Errorf("update of a seed at resourceVersion 41: %v, %v; want resourceVersion 42", updated.ResourceVersion, err)
	}
	bare, _ := client.CoreV1().ConfigMaps("ns").Get(ctx, "bare", metav1.GetOptions{})
	bare.ResourceVersion = "7"
	if _, err := client.CoreV1().ConfigMaps("ns").Update(ctx, bare, metav1.UpdateOptions{}); err != nil {
		t.Errorf("first write to a seed without resourceVersion: %v", err)
	}
}

func TestNewGivesSeedsResourceVersions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		seed := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}
		pinned := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "b", ResourceVersion: "10"}}
		env := controllertest.New(t, seed, pinned)
		if seed.ResourceVersion != "" {
			t.Errorf("New modified the caller's object: resourceVersion %q", seed.ResourceVersion)
		}
		cms := env.Client.CoreV1().ConfigMaps("ns")
		stored, err := cms.Get(env.Context(), "a", metav1.GetOptions{})
		if err != nil || stored.ResourceVersion != "11" {
			t.Fatalf("seed stored at resourceVersion %q, %v; want 11, after the pinned seed's 10", stored.ResourceVersion, err)
		}
		if _, err := cms.Update(env.Context(), stored.DeepCopy(), metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := cms.Update(env.Context(), stored, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
			t.Errorf("second update from the seed's copy: %v, want a conflict", err)
		}
	})
}

// A client's reactors prepended after InstallAPISemantics still run first,
// so tests can inject failures.
func TestLaterReactorsRunFirst(t *testing.T) {
	client := newClient(t)
	client.PrependReactor("create", "deployments", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewServiceUnavailable("injected")
	})
	_, err := client.AppsV1().Deployments("ns").Create(context.Background(), &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d"}}, metav1.CreateOptions{})
	if !apierrors.IsServiceUnavailable(err) {
		t.Errorf("create: %v, want the injected error", err)
	}
}

func TestDeletePreconditions(t *testing.T) {
	ctx := context.Background()
	client := newClient(t)
	cms := client.CoreV1().ConfigMaps("ns")
	created, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", UID: "uid-1"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Update(ctx, created.DeepCopy(), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	staleRV := *metav1.NewRVDeletionPrecondition(created.ResourceVersion)
	if err := cms.Delete(ctx, "c", staleRV); !apierrors.IsConflict(err) {
		t.Errorf("delete with a stale resourceVersion: %v, want a conflict", err)
	}
	otherUID := metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions("uid-2")}
	if err := cms.Delete(ctx, "c", otherUID); !apierrors.IsConflict(err) {
		t.Errorf("delete with another uid: %v, want a conflict", err)
	}
	if _, err := cms.Get(ctx, "c", metav1.GetOptions{}); err != nil {
		t.Fatalf("the failed deletes deleted: %v", err)
	}
	if err := cms.Delete(ctx, "c", metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions("uid-1")}); err != nil {
		t.Errorf("delete with the right uid: %v", err)
	}
	if err := cms.Delete(ctx, "c", otherUID); !apierrors.IsNotFound(err) {
		t.Errorf("delete of a deleted object: %v, want not found", err)
	}
}

func TestGenerateName(t *testing.T) {
	ctx := context.Background()
	client := newClient(t)
	names := map[string]bool{}
	for range 30 {
		cm, err := client.CoreV1().ConfigMaps("ns").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "web-"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(cm.Name) != len("web-")+5 || cm.Name[:4] != "web-" || names[cm.Name] {
			t.Fatalf("generated name %q; want web- and a new five-character suffix (had %v)", cm.Name, names)
		}
		names[cm.Name] = true
	}
	named, err := client.CoreV1().ConfigMaps("ns").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "fixed", GenerateName: "web-"}}, metav1.CreateOptions{})
	if err != nil || named.Name != "fixed" {
		t.Errorf("create with a name and generateName: %q, %v; want the name kept", named.Name, err)
	}
}

func TestCreateRefusesAResourceVersion(t *testing.T) {
	ctx := context.Background()
	client := newClient(t)
	cms := client.CoreV1().ConfigMaps("ns")
	created, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	again := created.DeepCopy()
	again.Name = "b"
	if _, err := cms.Create(ctx, again, metav1.CreateOptions{}); !apierrors.IsInternalError(err) {
		t.Errorf("create of a copy with a resourceVersion: %v, want the server's internal error", err)
	}
	if _, err := cms.Get(ctx, "b", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the refused create stored the object: %v", err)
	}
}

// A seed read before someone else's write is stale: NewClientset stores
// seeds with a resourceVersion, so writing that stale copy back conflicts
// instead of silently overwriting the other write.
func TestNewClientsetSeedsConflictWhenStale(t *testing.T) {
	seed := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm"}, Data: map[string]string{"k": "v0"}}
	client := controllertest.NewClientset(seed)
	if seed.ResourceVersion != "" {
		t.Fatalf("the caller's seed was modified: resourceVersion %q", seed.ResourceVersion)
	}
	ctx := context.Background()
	stale, err := client.CoreV1().ConfigMaps("ns").Get(ctx, "cm", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if stale.ResourceVersion == "" {
		t.Fatal("the seed was stored without a resourceVersion")
	}
	fresh := stale.DeepCopy()
	fresh.Data["k"] = "v1"
	if _, err := client.CoreV1().ConfigMaps("ns").Update(ctx, fresh, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	stale.Data["k"] = "v2"
	if _, err := client.CoreV1().ConfigMaps("ns").Update(ctx, stale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("stale update of a seed: %v, want a Conflict", err)
	}
}

func TestCreateSetsUID(t *testing.T) {
	ctx := context.Background()
	client := newClient(t)
	cms := client.CoreV1().ConfigMaps("ns")
	seen := map[types.UID]string{}
	for _, name := range []string{"a", "b", "c"} {
		cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if cm.UID == "" || seen[cm.UID] != "" {
			t.Fatalf("created %s with uid %q; want a new one (had %v)", name, cm.UID, seen)
		}
		seen[cm.UID] = name
	}
	given, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "d", UID: "mine"}}, metav1.CreateOptions{})
	if err != nil || given.UID != "mine" {
		t.Errorf("create with a uid: %q, %v; want the uid kept", given.UID, err)
	}
}
