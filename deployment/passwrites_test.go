package deployment

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/controller/controllertest"
)

// On a server that gives every write a new resourceVersion, the pass that
// creates a ReplicaSet writes the revision to the Deployment's status and
// then would write the rollout status from the same copy, on the version
// the first write replaced: upstream sends that request and is refused
// with a Conflict. Ours fails the pass with the same Conflict without
// sending it, and the next pass, on a fresh cache, writes the status.
// (TestReconcileCreatesReplicaSet shows both requests sent to a fake that
// keeps resourceVersions as they are, as upstream sends them.)
func TestReconcileDoesNotSendAWriteItsPassSuperseded(t *testing.T) {
	g := newSyncRig(t)
	controllertest.InstallAPISemantics(g.client)
	d := newDeployment("foo", 1)
	g.add(d)
	name := "foo-" + PodTemplateHash(&d.Spec.Template, nil)

	_, err := g.reconcile(d)
	if !apierrors.IsConflict(err) {
		t.Fatalf("first pass: err = %v, want the Conflict the API server would answer", err)
	}
	assertWrites(t, g.writes(), "create replicasets "+name, "update deployments/status foo")
	served, err := g.client.AppsV1().Deployments(testNamespace).Get(g.ctx(), "foo", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cond := GetCondition(served.Status, appsv1.DeploymentProgressing); served.Annotations[RevisionAnnotation] != "1" || cond == nil || cond.Reason != ReasonNewReplicaSetCreated {
		t.Fatalf("after the first pass: revision %q, Progressing %+v; want revision 1, reason %s",
			served.Annotations[RevisionAnnotation], cond, ReasonNewReplicaSetCreated)
	}

	g.settle()
	g.mustReconcile(d)
	assertWrites(t, g.writes(), "update deployments/status foo")
	last := g.lastDeploymentWrite()
	if last.Status.ObservedGeneration != served.Generation || last.Status.AvailableReplicas != 1 {
		t.Errorf("second pass wrote status %+v, want generation %d observed and 1 replica available", last.Status, served.Generation)
	}
}
