package deployment

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
)

// rollbackFixture is a Deployment at revision 3 (image v3) with ReplicaSets
// for revisions 1 (v1), 2 (v2) and 3 (v3, the new one), each carrying the
// change-cause annotation it was rolled out with, and a rollback request.
func rollbackFixture(request string) (*appsv1.Deployment, []*appsv1.ReplicaSet) {
	d := newDeployment("foo", 2)
	d.Spec.ProgressDeadlineSeconds = nil
	var rss []*appsv1.ReplicaSet
	for i, image := range []string{"v1", "v2", "v3"} {
		withTemplateImage(d, "registry.example/app:"+image)
		rs := withRevision(newReplicaSet(d, image, 0, time.Duration(i)*time.Minute), string(rune('1'+i)))
		rs.Annotations["kubernetes.io/change-cause"] = "deploy " + image
		setReplicasAnnotations(rs, 2, 3)
		rss = append(rss, rs)
	}
	*rss[2].Spec.Replicas = 2
	d.Annotations = map[string]string{
		RevisionAnnotation:           "3",
		"kubernetes.io/change-cause": "deploy v3",
		appsv1.DeprecatedRollbackTo:  request,
	}
	return d, rss
}

func TestRollback(t *testing.T) {
	tests := []struct {
		name      string
		request   string
		edit      func(rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet
		wantImage string
		wantCause string
		wantEvent string
	}{
		{
			name: "revision 0 goes to the previous revision", request: "0",
			wantImage: "registry.example/app:v2", wantCause: "deploy v2",
			wantEvent: `Normal DeploymentRollback Rolled back deployment "foo" to revision 2`,
		},
		{
			name: "an explicit revision", request: "1",
			wantImage: "registry.example/app:v1", wantCause: "deploy v1",
			wantEvent: `Normal DeploymentRollback Rolled back deployment "foo" to revision 1`,
		},
		{
			name: "revision 0 without history", request: "0",
			edit:      func(rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet { return rss[2:] },
			wantImage: "registry.example/app:v3", wantCause: "deploy v3",
			wantEvent: "Warning DeploymentRollbackRevisionNotFound Unable to find last revision.",
		},
		{
			name: "a revision that does not exist", request: "7",
			wantImage: "registry.example/app:v3", wantCause: "deploy v3",
			wantEvent: "Warning DeploymentRollbackRevisionNotFound Unable to find the revision to rollback to.",
		},
		{
			name: "the current revision: template unchanged", request: "3",
			wantImage: "registry.example/app:v3", wantCause: "deploy v3",
			wantEvent: `Warning DeploymentRollbackTemplateUnchanged The rollback revision contains the same template as current deployment "foo"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newSyncRig(t)
			d, rss := rollbackFixture(tt.request)
			if tt.edit != nil {
				rss = tt.edit(rss)
			}
			for _, rs := range rss {
				g.add(rs)
			}
			g.add(d)

			g.mustReconcile(d)

			// Only the spec update clearing the request; no ReplicaSet is touched.
			assertWrites(t, g.writes(), "update deployments foo")
			assertEvents(t, g.events(), tt.wantEvent)
			got := g.lastDeploymentWrite()
			if _, pending := getRollbackTo(got); pending || got.Annotations[appsv1.DeprecatedRollbackTo] != "" {
				t.Error("rollback request not cleared")
			}
			if img := got.Spec.Template.Spec.Containers[0].Image; img != tt.wantImage {
				t.Errorf("image %q, want %q", img, tt.wantImage)
			}
			if c := got.Annotations["kubernetes.io/change-cause"]; c != tt.wantCause {
				t.Errorf("change-cause %q, want %q", c, tt.wantCause)
			}
			if got.Annotations[RevisionAnnotation] != "3" {
				t.Errorf("the Deployment's own revision annotation must be kept, got %q", got.Annotations[RevisionAnnotation])
			}
			if _, ok := got.Spec.Template.Labels[appsv1.DefaultDeploymentUniqueLabelKey]; ok {
				t.Error("the pod-template-hash label was copied into the Deployment's template")
			}
		})
	}
}

// Upstream: TestReentrantRollback. The new ReplicaSet exists: only the
// Deployment is written, never a ReplicaSet.
func TestRollbackReentrant(t *testing.T) {
	g := newSyncRig(t)
	d, rss := rollbackFixture("0")
	for _, rs := range rss[1:] {
		g.add(rs)
	}
	g.add(d)
	g.mustReconcile(d)
	assertWrites(t, g.writes(), "update deployments foo")
}

// A rollback finds or creates the new ReplicaSet first, as a rollout step does.
func TestRollbackCreatesNewReplicaSetFirst(t *testing.T) {
	g := newSyncRig(t)
	d, rss := rollbackFixture("1")
	withTemplateImage(d, "registry.example/app:v4")
	for _, rs := range rss {
		g.add(rs)
	}
	g.add(d)
	g.mustReconcile(d)
	newName := "foo-" + PodTemplateHash(&d.Spec.Template, nil)
	assertWrites(t, g.writes(), "create replicasets "+newName, "update deployments/status foo", "update deployments foo")
	if img := g.lastDeploymentWrite().Spec.Template.Spec.Containers[0].Image; img != "registry.example/app:v1" {
		t.Errorf("image %q, want v1", img)
	}
}
