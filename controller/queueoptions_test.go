package controller_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/controllertest"
)

func TestRealChangesOvertakeTheInitialList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env := controllertest.New(t, configMap("ns", "a"), configMap("ns", "b"), configMap("ns", "c"))
		gate := make(chan struct{})
		first := true
		r := &controllertest.Recorder[string]{Reconciler: controller.ReconcilerFunc[string](
			func(context.Context, string) (controller.Result, error) {
				if first {
					first = false
					<-gate
				}
				return controller.Result{}, nil
			})}
		c := newConfigMapController(t, env, r, controller.Options[string]{})
		env.Start(c) // the only worker holds one initial key at the gate
		create(t, env, configMap("ns", "new"))
		env.Settle()
		close(gate)
		env.Settle()

		keys := r.Keys()
		if len(keys) != 4 || keys[1] != "ns/new" {
			t.Fatalf("reconciled %v, want ns/new right after the first initial key", keys)
		}
	})
}

func TestLanesAreServedRoundRobin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env := controllertest.New(t)
		r := &controllertest.Recorder[string]{}
		namespace := func(key string) string { ns, _, _ := strings.Cut(key, "/"); return ns }
		c, err := controller.New("lanes", controller.Reconciler[string](r), controller.Options[string]{Lane: namespace})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"busy/1", "busy/2", "busy/3", "quiet/1"} {
			c.Queue().Add(k)
		}
		env.Start(c)
		if got, want := r.Keys(), []string{"busy/1", "quiet/1", "busy/2", "busy/3"}; !slices.Equal(got, want) {
			t.Fatalf("reconciled %v, want %v", got, want)
		}
	})
}
