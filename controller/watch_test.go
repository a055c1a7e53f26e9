package controller_test

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/controllertest"
)

func TestWatchReconcilesInitialListAndEveryChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env := controllertest.New(t, configMap("a", "one"), configMap("b", "two"))
		r := &controllertest.Recorder[string]{}
		c := newConfigMapController(t, env, r, controller.Options[string]{})
		env.Start(c)
		if got, want := sorted(r.Keys()), []string{"a/one", "b/two"}; !slices.Equal(got, want) {
			t.Fatalf("initial list reconciled %v, want %v", got, want)
		}

		r.Reset()
		create(t, env, configMap("a", "three"))
		env.Settle()
		cm := configMap("b", "two")
		cm.Data = map[string]string{"k": "v"}
		if _, err := env.Client.CoreV1().ConfigMaps("b").Update(context.Background(), cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		env.Settle()
		if err := env.Client.CoreV1().ConfigMaps("a").Delete(context.Background(), "one", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		env.Settle()
		if got, want := r.Keys(), []string{"a/three", "b/two", "a/one"}; !slices.Equal(got, want) {
			t.Fatalf("changes reconciled %v, want %v", got, want)
		}
	})
}
