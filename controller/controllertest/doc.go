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
// The fake clientset on its own differs from an API server in ways that
// bite controllers: it stores a write from a stale copy without a
// conflict, a status update rewrites the spec, nothing sets
// resourceVersion or generation, and a watcher may be handed the very
// object the fake stores. [InstallAPISemantics] gives a fake clientset
// the server's behaviour there, and New installs it on Env.Client; use it
// directly for tests that build their own fake clientset. There is still no
// defaulting, validation or garbage collection: set such fields in the
// test when the code under test depends on them.
//
// [NewTypedClient] is the same for a custom resource, which the fake
// clientset does not know: a fake of typed.Client for T, on client-go's
// object tracker, with the same server semantics, and server-side apply
// with the API server's field ownership.
//
// [LateWatch] wraps a watch so that an informer sees each event late, for
// tests of code that must not act on a stale cache.
//
// Code that reads the time should use the real clock (clock.RealClock{} or
// the time package): inside the bubble it is virtual, and it is the clock
// Advance moves.
package controllertest
