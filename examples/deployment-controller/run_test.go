package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// request is one API request, as RBAC sees it.
type request struct {
	group, resource, verb, namespace string // resource may be "name/subresource"
}

func (r request) String() string {
	return fmt.Sprintf("%s %s.%s in %q", r.verb, r.resource, r.group, r.namespace)
}

func requestOf(a k8stesting.Action) request {
	res := a.GetResource()
	resource := res.Resource
	if sub := a.GetSubresource(); sub != "" {
		resource += "/" + sub
	}
	return request{group: res.Group, resource: resource, verb: a.GetVerb(), namespace: a.GetNamespace()}
}

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
	mgr, stopRecorder, err := newManager(ctx, o, client)
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
		err := <-done
		stopRecorder()
		return err
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	return mgr.HealthProbeAddr, stop
}

// waitFor polls cond until it holds or 30 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 30*time.Second, true,
		func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

func seen(client *fake.Clientset, want request) bool {
	return slices.ContainsFunc(client.Actions(), func(a k8stesting.Action) bool {
		r := requestOf(a)
		return r.group == want.group && r.resource == want.resource && r.verb == want.verb
	})
}

func TestManagerRunsTheDeploymentController(t *testing.T) {
	client := fake.NewClientset(scenario()...)
	addr, stop := startManager(t, client)

	ctx := context.Background()
	waitFor(t, "the rollback to revision 1", func() bool {
		d, err := client.AppsV1().Deployments("default").Get(ctx, "rollback", metav1.GetOptions{})
		return err == nil && d.Spec.Template.Spec.Containers[0].Image == "app:v1" && d.Annotations["deprecated.deployment.rollback.to"] == ""
	})
	waitFor(t, "the scale-up to 3", func() bool {
		rs, err := client.AppsV1().ReplicaSets("default").Get(ctx, "scaled-cur", metav1.GetOptions{})
		return err == nil && *rs.Spec.Replicas == 3
	})
	waitFor(t, "a new ReplicaSet for rolling", func() bool {
		list, err := client.AppsV1().ReplicaSets("default").List(ctx, metav1.ListOptions{LabelSelector: "app=rolling"})
		return err == nil && len(list.Items) == 2
	})
	waitFor(t, "the paused Deployment's history to be cleaned up", func() bool {
		list, err := client.AppsV1().ReplicaSets("default").List(ctx, metav1.ListOptions{LabelSelector: "app=paused"})
		return err == nil && len(list.Items) == 1 && list.Items[0].Name == "paused-cur"
	})

	// The endpoints answer, and the Lease names this process.
	for _, path := range []string{"/healthz", "/readyz"} {
		waitFor(t, path+" to answer ok", func() bool {
			resp, err := http.Get("http://" + addr() + path)
			if err != nil {
				return false
			}
			resp.Body.Close()
			return resp.StatusCode == http.StatusOK
		})
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

// notExercised are rules granted for requests the fake cluster cannot make
// happen, with the reason each is still needed.
var notExercised = map[request]string{
	{group: "apps", resource: "deployments/finalizers", verb: "update"}: "OwnerReferencesPermissionEnforcement admission: owner references with blockOwnerDeletion",
	{group: "", resource: "events", verb: "patch"}:                      "client-go's recorder patches the count of a repeated event",
}

// TestRBACCoversExactlyWhatTheControllerDoes runs the whole process on a fake
// cluster, then checks both ways: every request it made is allowed by
// manifests/rbac.yaml, and every rule there was used (or is listed in
// notExercised with a reason).
func TestRBACCoversExactlyWhatTheControllerDoes(t *testing.T) {
	m := loadManifests(t)
	client := fake.NewClientset(scenario()...)
	_, stop := startManager(t, client)

	wants := []request{
		{group: "apps", resource: "deployments", verb: "get"},
		{group: "apps", resource: "deployments", verb: "update"},
		{group: "apps", resource: "deployments/status", verb: "update"},
		{group: "apps", resource: "replicasets", verb: "create"},
		{group: "apps", resource: "replicasets", verb: "update"},
		{group: "apps", resource: "replicasets", verb: "patch"},
		{group: "apps", resource: "replicasets", verb: "delete"},
		{group: "", resource: "events", verb: "create"},
		{group: "coordination.k8s.io", resource: "leases", verb: "create"},
	}
	for _, want := range wants {
		waitFor(t, want.String(), func() bool { return seen(client, want) })
	}
	if err := stop(); err != nil { // releases the Lease: one more update
		t.Fatal(err)
	}

	type rule struct{ group, resource, verb string }
	granted := map[rule]string{} // rule → where it comes from
	clusterRole, role := m.clusterRoles[0], m.roles[0]
	addRules := func(rules []rbacv1.PolicyRule, source string) {
		for _, r := range rules {
			if len(r.ResourceNames) > 0 || len(r.NonResourceURLs) > 0 {
				t.Errorf("%s: rule %+v: resourceNames and nonResourceURLs are not expected", source, r)
			}
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					for _, v := range r.Verbs {
						if g == "*" || res == "*" || v == "*" {
							t.Errorf("%s: wildcard in rule %+v", source, r)
						}
						granted[rule{g, res, v}] = source
					}
				}
			}
		}
	}
	addRules(clusterRole.Rules, "ClusterRole "+clusterRole.Name)
	addRules(role.Rules, "Role "+role.Namespace+"/"+role.Name)

	used := map[rule]bool{}
	for _, a := range client.Actions() {
		r := requestOf(a)
		if r.verb == "create" && r.group == "" && r.resource == "events" && a.GetNamespace() == "" {
			t.Errorf("event created without a namespace: %v", a)
		}
		key := rule{r.group, r.resource, r.verb}
		source, ok := granted[key]
		switch {
		case !ok:
			t.Errorf("%v is not allowed by manifests/rbac.yaml", r)
		case strings.HasPrefix(source, "Role ") && r.namespace != role.Namespace:
			t.Errorf("%v: allowed only in namespace %s by %s", r, role.Namespace, source)
		}
		used[key] = true
	}
	for key, source := range granted {
		reason, excused := notExercised[request{group: key.group, resource: key.resource, verb: key.verb}]
		switch {
		case used[key] && excused:
			t.Errorf("%+v is listed as not exercised (%s) but was used: drop it from notExercised", key, reason)
		case !used[key] && !excused:
			t.Errorf("%s grants %+v, which the controller never used: remove it, or say why in notExercised", source, key)
		}
	}
	for r := range notExercised {
		if _, ok := granted[rule{r.group, r.resource, r.verb}]; !ok {
			t.Errorf("notExercised lists %v, which manifests/rbac.yaml does not grant", r)
		}
	}
}
