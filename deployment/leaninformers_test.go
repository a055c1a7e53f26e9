package deployment

import (
	"context"
	"testing"
	"testing/synctest"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller/controllertest"
)

// TestNewControllerOnLeanInformers runs the wired controller on lean
// informers through a rollout: the new ReplicaSet is made, and after a
// template change the old one is scaled to zero.
func TestNewControllerOnLeanInformers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newDeployment("web", 2)
		env := controllertest.New(t, d)
		if err := UseLeanInformers(env.Informers, ""); err != nil {
			t.Fatal(err)
		}
		if err := UseLeanInformers(env.Informers, ""); err == nil {
			t.Error("UseLeanInformers twice on one factory succeeded, want an error")
		}
		ctrl, _, err := NewController(env.Client, env.Informers, record.NewFakeRecorder(100), Options{})
		if err != nil {
			t.Fatal(err)
		}
		env.Start(ctrl)
		first := "web-" + PodTemplateHash(&d.Spec.Template, nil)

		live, err := env.Client.AppsV1().Deployments(testNamespace).Get(env.Context(), "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		live.Spec.Template.Labels["version"] = "2"
		if _, err := env.Client.AppsV1().Deployments(testNamespace).Update(context.Background(), live, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		env.Settle()

		rss, err := env.Client.AppsV1().ReplicaSets(testNamespace).List(env.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		second := "web-" + PodTemplateHash(&live.Spec.Template, nil)
		replicas := map[string]int32{}
		for _, rs := range rss.Items {
			replicas[rs.Name] = ptr.Deref(rs.Spec.Replicas, -1)
		}
		if _, ok := replicas[first]; !ok || len(replicas) != 2 {
			t.Fatalf("ReplicaSets = %v, want %s and %s", replicas, first, second)
		}
		if _, ok := replicas[second]; !ok {
			t.Fatalf("ReplicaSets = %v, want the new template's %s", replicas, second)
		}
		// No pods become available in the fake cluster: the rollout stops at
		// its first step, the new ReplicaSet surged by maxSurge (25% of 2,
		// rounded up: 1) and the old one still at 2 (maxUnavailable rounds
		// down to 0).
		if replicas[second] != 1 || replicas[first] != 2 {
			t.Errorf("replicas = %v, want %s:1 (surge) and %s:2", replicas, second, first)
		}
	})
}
