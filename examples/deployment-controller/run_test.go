package main

import (
	"context"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/ctrlkit/ctrlkit/controller/controllertest"
	"github.com/ctrlkit/ctrlkit/examples/internal/manifesttest"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// scenario is a cluster in which one pass over each Deployment exercises
// every kind of write the controller makes: create (a rollout), scale
// (update), adopt (patch, after a live get), history cleanup (delete), a
// legacy rollback (a spec update), status updates, events; and, from the
// manager, leader election on a Lease.
func scenario() []runtime.Object {
	rolling := newDeployment("rolling", "app:v2")
	scaled := newDeployment("scaled", "app:v1")
	scaled.Spec.Replicas = ptrTo[int32](3)
	paused := newDeployment("paused", "app:v2")
	paused.Spec.Paused = true
	rollback := newDeployment("rollback", "app:v2")
	rollback.Annotations = map[string]string{"deprecated.deployment.rollback.to": "1"}
	return []runtime.Object{
		rolling, newReplicaSet(rolling, "old", "app:v1", "1", 2, false),
		scaled, newReplicaSet(scaled, "cur", "app:v1", "1", 1, false),
		paused, newReplicaSet(paused, "cur", "app:v2", "2", 2, false),
		newReplicaSet(paused, "old", "app:v1", "1", 0, false),
		newReplicaSet(paused, "orphan", "app:v0", "0", 0, true),
		rollback, newReplicaSet(rollback, "cur", "app:v2", "2", 2, false),
		newReplicaSet(rollback, "old", "app:v1", "1", 0, false),
	}
}

func ptrTo[T any](v T) *T { return &v }

// newClient is a fake cluster holding the scenario, with the API server's
// write semantics.
func newClient() *fake.Clientset {
	client := controllertest.NewClientset(scenario()...)
	return client
}

// startManager runs the command's manager on client until the test ends.
func startManager(t *testing.T, client *fake.Clientset, args ...string) (addr func() string, stop func() error) {
	t.Helper()
	o, err := parseOptions(append([]string{
		"--leader-elect-resource-namespace=ctrlkit-system",
		"--metrics-bind-address=127.0.0.1:0",
		"--health-probe-bind-address=127.0.0.1:0",
	}, args...), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	mgr, err := newManager(ctx, o, client)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Run(ctx) }()
	stopped := false
	stop = func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		return <-done
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	return mgr.HealthProbeAddr, stop
}

func seen(client *fake.Clientset, want manifesttest.Request) bool {
	return slices.ContainsFunc(client.Actions(), func(a k8stesting.Action) bool {
		return manifesttest.RequestOf(a) == want
	})
}

func TestManagerRunsTheDeploymentController(t *testing.T) {
	client := newClient()
	addr, stop := startManager(t, client)

	ctx := context.Background()
	testutil.Eventually(t, 30*time.Second, "the rollback to revision 1", testutil.True(func() bool {
		d, err := client.AppsV1().Deployments("default").Get(ctx, "rollback", metav1.GetOptions{})
		return err == nil && d.Spec.Template.Spec.Containers[0].Image == "app:v1" && d.Annotations["deprecated.deployment.rollback.to"] == ""
	}))
	testutil.Eventually(t, 30*time.Second, "the scale-up to 3", testutil.True(func() bool {
		rs, err := client.AppsV1().ReplicaSets("default").Get(ctx, "scaled-cur", metav1.GetOptions{})
		return err == nil && *rs.Spec.Replicas == 3
	}))
	testutil.Eventually(t, 30*time.Second, "a new ReplicaSet for rolling", testutil.True(func() bool {
		list, err := client.AppsV1().ReplicaSets("default").List(ctx, metav1.ListOptions{LabelSelector: "app=rolling"})
		return err == nil && len(list.Items) == 2
	}))
	testutil.Eventually(t, 30*time.Second, "the paused Deployment's history to be cleaned up", testutil.True(func() bool {
		list, err := client.AppsV1().ReplicaSets("default").List(ctx, metav1.ListOptions{LabelSelector: "app=paused"})
		return err == nil && len(list.Items) == 1 && list.Items[0].Name == "paused-cur"
	}))

	// The endpoints answer, and the Lease names this process.
	for _, path := range []string{"/healthz", "/readyz"} {
		testutil.Eventually(t, 30*time.Second, path+" to answer ok", testutil.True(func() bool {
			resp, err := http.Get("http://" + addr() + path)
			if err != nil {
				return false
			}
			resp.Body.Close()
			return resp.StatusCode == http.StatusOK
		}))
	}
	lease, err := client.CoordinationV1().Leases("ctrlkit-system").Get(ctx, "ctrlkit-deployment-controller", metav1.GetOptions{})
	if err != nil || lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		t.Fatalf("Lease = %+v, %v; want one held by this process", lease, err)
	}

	// Graceful shutdown gives the Lease up.
	if err := stop(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	lease, err = client.CoordinationV1().Leases("ctrlkit-system").Get(ctx, "ctrlkit-deployment-controller", metav1.GetOptions{})
	if err != nil || !leaseReleased(lease) {
		t.Errorf("after shutdown, Lease = %+v, %v; want it released", lease.Spec, err)
	}
}

func leaseReleased(l *coordinationv1.Lease) bool {
	return l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == ""
}

// mayBeUnused are rules for requests a run on the fake cluster may not make,
// with the reason each is needed all the same.
var mayBeUnused = map[manifesttest.Request]string{
	{Group: "apps", Resource: "deployments/finalizers", Verb: "update"}: "OwnerReferencesPermissionEnforcement admission: owner references with blockOwnerDeletion",
	{Group: "", Resource: "events", Verb: "patch"}:                      "client-go's recorder patches the count of an event repeated within its cache window",
}

// TestRBACCoversExactlyWhatTheControllerDoes runs the whole process on a fake
// cluster, sharded as the manifest runs it, then checks manifests/rbac.yaml both ways: every request it made
// is allowed, and every rule there was used (or is listed in mayBeUnused
// with a reason).
func TestRBACCoversExactlyWhatTheControllerDoes(t *testing.T) {
	m := manifesttest.Load(t, "manifests/*.yaml")
	client := newClient()
	_, stop := startManager(t, client, "--shard-ring=deployment-controller")

	for _, want := range []manifesttest.Request{
		{Group: "apps", Resource: "deployments", Verb: "get"},
		{Group: "apps", Resource: "deployments", Verb: "update"},
		{Group: "apps", Resource: "deployments/status", Verb: "update"},
		{Group: "apps", Resource: "replicasets", Verb: "create"},
		{Group: "apps", Resource: "replicasets", Verb: "update"},
		{Group: "apps", Resource: "replicasets", Verb: "patch"},
		{Group: "apps", Resource: "replicasets", Verb: "delete"},
		{Group: "", Resource: "events", Verb: "create"},
		{Group: "coordination.k8s.io", Resource: "leases", Verb: "create"},
		{Group: "coordination.k8s.io", Resource: "leases", Verb: "list"},
	} {
		testutil.Eventually(t, 30*time.Second, want.String(), testutil.True(func() bool { return seen(client, want) }))
	}
	if err := stop(); err != nil { // releases the Lease: one more update
		t.Fatal(err)
	}
	for _, a := range client.Actions() {
		if manifesttest.RequestOf(a).Resource == "events" && a.GetNamespace() == "" {
			t.Errorf("event written without a namespace: %v", a)
		}
	}
	manifesttest.CheckRBAC(t, m, client.Actions(), mayBeUnused)
}
