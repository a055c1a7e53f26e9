// Package controllertest runs controllers against a fake cluster, for
// deterministic tests of a Reconciler and its wiring.
//
// An [Env] holds a fake clientset (k8s.io/client-go/kubernetes/fake), a
// shared informer factory fed from it, and the controllers under test. It
// lives inside a testing/synctest bubble, which is what makes it
// deterministic: time is virtual, and [Env.Settle] returns exactly when
// every informer event has been delivered and every reconcile it caused has
// returned, with no polling and no sleeps. [Env.Advance] moves virtual time
// forward, running the reconciles that Result.RequeueAfter or a retry
// backoff scheduled, in time order.
//
//	func TestConfigMaps(t *testing.T) {
//		synctest.Test(t, func(t *testing.T) {
//			env := controllertest.New(t, existingObjects...)
//			c, _ := controller.New("cm", myReconciler(env.Client), controller.Options[string]{})
//			c.Watch(env.Informers.Core().V1().ConfigMaps().Informer(), handler.ForObject(handler.ObjectKey))
//			env.Start(c)                  // informers synced, initial reconciles done
//			// ... change objects with env.Client, then env.Settle()
//			// ... assert on env.WriteActions() or on the objects
//		})
//	}
//
// The fake clientset differs from an API server in ways that matter to
// controllers: Env makes creates and updates set a new resourceVersion (so
// updates do not look like resyncs), but patches keep the old one, nothing
// bumps metadata.generation, and there is no optimistic concurrency, no
// defaulting, no garbage collection. Set such fields in the test when the
// code under test depends on them.
//
// Code that reads the time should use the real clock (clock.RealClock{} or
// the time package): inside the bubble it is virtual, and it is the clock
// Advance moves.
package controllertest
