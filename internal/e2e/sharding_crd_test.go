//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller/sharding"
	"github.com/ctrlkit/ctrlkit/controller/typed"
	webappv1 "github.com/ctrlkit/ctrlkit/examples/crd-operator/api/v1"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

const (
	crdOperatorBinary = "github.com/ctrlkit/ctrlkit/examples/crd-operator"
	webAppCRD         = "../../examples/crd-operator/manifests/example.ctrlkit.dev_webapps.yaml"
	webAppRing        = "webapps"
	webAppNamespaces  = 10
	webAppsPerNS      = 2
)

// TestShardedCRDOperator is issue 30's end-to-end test of a sharded
// operator built with the builder: two replica processes of
// examples/crd-operator --shard-ring, in one ring, with leader election
// on, reconcile 20 WebApps in 10 namespaces (generated names, which
// spread over the hash space as other tests' namespaces on this shared
// control plane do). Each replica reconciles only
// the WebApps of its own namespaces (no namespace is reconciled by both,
// and both work, though only one leads), no key is reconciled by both at
// once, and every WebApp reaches its desired state: Ready, its Deployment
// rolled out by the control plane's Deployment controller, its registry
// entry written; deleted, its finalizer runs.
func TestShardedCRDOperator(t *testing.T) {
	bin := buildCommand(t, crdOperatorBinary)
	cp := upstreamCP.get(t) // its Deployment controller rolls the WebApps' Deployments out
	ctx := t.Context()
	if out, err := cp.Kubectl(ctx, "apply", "-f", webAppCRD).CombinedOutput(); err != nil {
		t.Fatalf("kubectl apply -f %s: %v\n%s", webAppCRD, err, out)
	}
	if out, err := cp.Kubectl(ctx, "wait", "--for=condition=Established", "--timeout=60s", "crd/webapps.example.ctrlkit.dev").CombinedOutput(); err != nil {
		t.Fatalf("waiting for the CRD: %v\n%s", err, out)
	}
	client := cp.Client()
	webApps, err := typed.NewClient[*webappv1.WebApp](cp.RESTConfig(), webappv1.Resource)
	if err != nil {
		t.Fatal(err)
	}
	leases, registry := newNamespace(t, client), newNamespace(t, client)
	var namespaces []string
	for range webAppNamespaces {
		namespaces = append(namespaces, newNamespace(t, client))
	}

	start := func(name string) *process {
		return startProcess(t, name, bin,
			"--kubeconfig="+cp.KubeconfigPath(),
			"--shard-ring="+webAppRing,
			"--registry-namespace="+registry,
			// Leader election stays on: the sharded controller runs on
			// both replicas anyway. The ring takes its namespace and
			// timings.
			"--leader-elect=true",
			"--leader-elect-resource-namespace="+leases,
			"--leader-elect-lease-duration="+shardLeaseDuration.String(),
			"--leader-elect-renew-deadline="+shardRenewDeadline.String(),
			"--leader-elect-retry-period="+shardRetryPeriod.String(),
			"--metrics-bind-address=0", "--health-probe-bind-address=0",
			"--kube-api-qps=100", "--kube-api-burst=200",
			"--v=5", // "Reconciling" and "Reconciled", for the recorder
		)
	}
	replicas := []*process{start("operator-1"), start("operator-2")}
	// The ring forms before there is anything to reconcile, so that no
	// WebApp changes hands during the test.
	testutil.Eventually(t, time.Minute, "the two replicas to split the ring", func(ctx context.Context) (bool, error) {
		list, err := client.CoordinationV1().Leases(leases).List(ctx, metav1.ListOptions{LabelSelector: sharding.RingLabel + "=" + webAppRing})
		if err != nil {
			return false, err
		}
		serving := map[string]bool{}
		for _, l := range list.Items {
			if s := l.Annotations[servingAnnotation]; s != "" && s != fullRange && s != emptyRange {
				serving[s] = true
			}
		}
		return len(list.Items) == 2 && len(serving) == 2, fmt.Errorf("%d members, serving %v", len(list.Items), slices.Collect(maps.Keys(serving)))
	})
	formed := ringAssignment(t, client, leases)

	for _, ns := range namespaces {
		for i := range webAppsPerNS {
			app := &webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("web-%d", i)},
				Spec: webappv1.WebAppSpec{Image: webappv1.Image{Repository: "nginx", Tag: "1.26"}, Replicas: ptr.To[int32](2)}}
			if _, err := webApps.Namespace(ns).Create(ctx, app, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	testutil.Eventually(t, 3*time.Minute, "every WebApp to be Ready, rolled out and registered", func(ctx context.Context) (bool, error) {
		list, err := webApps.List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		var notReady []string
		for _, app := range list.Items {
			if !slices.Contains(namespaces, app.Namespace) {
				continue
			}
			if !webAppDone(app) {
				notReady = append(notReady, app.Namespace+"/"+app.Name)
				continue
			}
			if _, err := client.CoreV1().ConfigMaps(registry).Get(ctx, app.Namespace+"."+app.Name, metav1.GetOptions{}); err != nil {
				notReady = append(notReady, app.Namespace+"/"+app.Name+" (registry: "+err.Error()+")")
			}
		}
		return len(list.Items) >= len(namespaces)*webAppsPerNS && len(notReady) == 0, fmt.Errorf("not done: %v", notReady)
	})

	// Deleted, each WebApp's finalizer runs on its replica.
	for _, ns := range namespaces {
		if err := webApps.Namespace(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	testutil.Eventually(t, time.Minute, "every WebApp and registry entry to be gone", func(ctx context.Context) (bool, error) {
		for _, ns := range namespaces {
			list, err := webApps.Namespace(ns).List(ctx, metav1.ListOptions{})
			if err != nil || len(list.Items) > 0 {
				return false, fmt.Errorf("%s: %v WebApps left (%v)", ns, len(list.Items), err)
			}
		}
		cms, err := client.CoreV1().ConfigMaps(registry).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		left := 0
		for _, cm := range cms.Items {
			if cm.Name != "kube-root-ca.crt" {
				left++
			}
		}
		return left == 0, fmt.Errorf("%d registry entries left", left)
	})

	// Other tests create namespaces on this control plane meanwhile: if
	// that moved the ring's cuts, a namespace may have changed hands, and
	// only the overlap check still applies.
	moved := ringAssignment(t, client, leases) != formed
	for _, r := range replicas {
		if err := r.stop(15 * time.Second); err != nil {
			t.Errorf("%s: %v", r.name, err)
		}
	}
	if moved {
		t.Log("the ring rebalanced during the test (other tests' namespaces): checking overlaps only")
	}
	checkOwnNamespaces(t, replicas, namespaces, !moved)
}

// ringAssignment is the assignment on the webapps ring's Leases: the one
// its coordinator publishes.
func ringAssignment(t *testing.T, client kubernetes.Interface, namespace string) string {
	t.Helper()
	list, err := client.CoordinationV1().Leases(namespace).List(t.Context(), metav1.ListOptions{LabelSelector: sharding.RingLabel + "=" + webAppRing})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range list.Items {
		if a := l.Annotations[assignmentAnnotation]; a != "" {
			return a
		}
	}
	var seen []string
	for _, l := range list.Items {
		seen = append(seen, fmt.Sprintf("%s rv %s holder %v annotations %v", l.Name, l.ResourceVersion, ptr.Deref(l.Spec.HolderIdentity, ""), l.Annotations))
	}
	t.Fatalf("no member of the ring publishes an assignment: %v", seen)
	return ""
}

// webAppDone reports whether app is in its desired state: its status
// describes its generation, it is Ready, and its Deployment has every
// replica available.
func webAppDone(app *webappv1.WebApp) bool {
	return app.Status.ObservedGeneration == app.Generation &&
		meta.IsStatusConditionTrue(app.Status.Conditions, "Ready") &&
		app.Status.AvailableReplicas == ptr.Deref(app.Spec.Replicas, 1)
}

// checkOwnNamespaces reads the replicas' reconciles from their logs and
// checks that both replicas reconciled some, that every namespace was
// reconciled, that no key was reconciled by both at once and, if
// oneOwner, that each namespace's WebApps were reconciled by one replica
// only.
func checkOwnNamespaces(t *testing.T, replicas []*process, namespaces []string, oneOwner bool) {
	t.Helper()
	var all []reconcileInterval
	owners := map[string]map[string]bool{} // namespace → replicas
	for _, r := range replicas {
		rs, err := parseReconciles(r.name, r.output(), r.ExitedAt())
		if err != nil {
			t.Fatalf("reading the reconciles of %s: %v", r.name, err)
		}
		mine := map[string]bool{}
		for _, rec := range rs {
			ns, _, _ := strings.Cut(rec.key, "/")
			if owners[ns] == nil {
				owners[ns] = map[string]bool{}
			}
			owners[ns][r.name] = true
			mine[ns] = true
		}
		t.Logf("%s: %d reconciles in %d namespaces %v", r.name, len(rs), len(mine), slices.Sorted(maps.Keys(mine)))
		if len(rs) == 0 {
			t.Errorf("%s reconciled nothing (want \"Reconciling\" lines at -v=5)", r.name)
		}
		all = append(all, rs...)
	}
	for _, ns := range namespaces {
		switch by := slices.Sorted(maps.Keys(owners[ns])); len(by) {
		case 0:
			t.Errorf("no replica reconciled the WebApps of %s", ns)
		case 1:
		default:
			if !oneOwner {
				break
			}
			t.Errorf("the WebApps of %s were reconciled by %v: a namespace belongs to one replica", ns, by)
		}
	}
	for _, o := range overlaps(all) {
		t.Errorf("two replicas reconciled one key at once:\n  %s\n  %s", o[0], o[1])
	}
}
