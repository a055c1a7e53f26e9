package deployment

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clienttesting "k8s.io/client-go/testing"

	"github.com/ctrlkit/ctrlkit/controller/controllertest"
)

// On a server that gives every write a new resourceVersion and refuses a
// write on a replaced one, the pass that creates a ReplicaSet writes the
// Deployment's status twice: the new revision, then the rollout status.
// Upstream sends the second on the version the first replaced and is
// refused; ours sends it on the version the first returned, so both reach
// the server and land, and the pass returns no error at all: nothing the
// controller sees is an answer no request got.
func TestReconcileStatusWritesOfOnePassBothLand(t *testing.T) {
	g := newSyncRig(t)
	controllertest.InstallAPISemantics(g.client)
	d := newDeployment("foo", 1)
	g.add(d)
	name := "foo-" + PodTemplateHash(&d.Spec.Template, nil)

	if _, err := g.reconcile(d); err != nil {
		t.Fatalf("first pass: %v, want no error: both writes are sent on current resourceVersions", err)
	}
	assertWrites(t, g.writes(), "create replicasets "+name, "update deployments/status foo", "update deployments/status foo")

	var sent []string
	for _, a := range g.client.Actions() {
		if u, ok := a.(clienttesting.UpdateAction); ok && a.GetSubresource() == "status" {
			sent = append(sent, u.GetObject().(*appsv1.Deployment).ResourceVersion)
		}
	}
	if sent[0] != d.ResourceVersion || sent[1] == sent[0] {
		t.Errorf("status writes sent on resourceVersions %q, want the read one (%s) and then the one the first write returned", sent, d.ResourceVersion)
	}

	served, err := g.client.AppsV1().Deployments(testNamespace).Get(g.ctx(), "foo", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if served.Annotations[RevisionAnnotation] != "1" || served.Status.ObservedGeneration != served.Generation {
		t.Errorf("served after one pass: revision %q, observedGeneration %d; want revision 1 and generation %d observed",
			served.Annotations[RevisionAnnotation], served.Status.ObservedGeneration, served.Generation)
	}
	if cond := GetCondition(served.Status, appsv1.DeploymentProgressing); cond == nil || cond.Reason != ReasonNewReplicaSetCreated {
		t.Errorf("served Progressing condition %+v, want reason %s", cond, ReasonNewReplicaSetCreated)
	}
}
