package controllertest

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/clock"
)

// Runnable is what Env.Start runs: a controller.Controller of any key type.
type Runnable interface {
	Run(ctx context.Context) error
	Name() string
	HasSynced() bool
}

// Env is a fake cluster with informers and running controllers, inside a
// synctest bubble. Create it with New; it is torn down by t.Cleanup.
type Env struct {
	// Client is the fake clientset holding the cluster's objects. Changes
	// made through it reach the informers.
	Client *fake.Clientset
	// Informers is fed from Client, with no resync. Ask it for the
	// informers the controllers watch before calling Start.
	Informers informers.SharedInformerFactory
	// Clock is the clock to give the code under test: the real clock, which
	// inside the bubble is virtual and which Advance moves.
	Clock clock.WithTicker

	t      testing.TB
	ctx    context.Context
	cancel context.CancelFunc
	done   []chan error
}

// New returns an Env whose cluster holds objects. It must be called inside
// synctest.Test; t is the bubble's t.
//
// Env.Client has InstallAPISemantics installed: writes get new
// resourceVersions, stale updates conflict, and so on. Seeded objects
// without a resourceVersion are stored with one (objects is not modified).
func New(t testing.TB, objects ...runtime.Object) *Env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	client := NewClientset(objects...)
	e := &Env{
		Client:    client,
		Informers: informers.NewSharedInformerFactory(client, 0),
		Clock:     clock.RealClock{},
		t:         t,
		ctx:       ctx,
		cancel:    cancel,
	}
	t.Cleanup(e.stop)
	return e
}

// Context is cancelled when the test ends.
func (e *Env) Context() context.Context { return e.ctx }

// Start starts the informers the factory has handed out, runs each
// controller in its own goroutine, and settles: when it returns, the
// informers have synced, the controllers are running, and the reconciles of
// the initial lists are done. A controller that fails to start fails the
// test.
func (e *Env) Start(controllers ...Runnable) {
	e.t.Helper()
	e.Informers.Start(e.ctx.Done())
	for _, c := range controllers {
		done := make(chan error, 1)
		e.done = append(e.done, done)
		go func() { done <- c.Run(e.ctx) }()
	}
	e.Settle()
	for _, c := range controllers {
		if !c.HasSynced() {
			e.t.Fatalf("controllertest: controller %q did not sync", c.Name())
		}
	}
}

// Settle waits until the cluster is idle: every informer event delivered,
// every ready key reconciled, nothing running. Keys scheduled for later
// stay scheduled; Advance runs them.
func (e *Env) Settle() {
	synctest.Wait()
}

// Advance moves virtual time forward by d, running every reconcile that
// falls due on the way (requeues, retries) at its due time, and settles.
func (e *Env) Advance(d time.Duration) {
	time.Sleep(d)
	e.Settle()
}

// DelayWatches makes the watches of resource ("replicasets", say) deliver
// each event delay late (see LateWatch): a slow informer, as under a
// loaded API server. Lists are not delayed. Call it before Start.
func (e *Env) DelayWatches(resource string, delay time.Duration) {
	e.Client.PrependWatchReactor(resource, watchReactor(e.Client.Tracker(), func(w watch.Interface) watch.Interface {
		return LateWatch(w, delay)
	}))
}

// Actions returns every request the fake clientset served, reads included.
func (e *Env) Actions() []clienttesting.Action { return e.Client.Actions() }

// WriteActions returns the requests that changed something: every action
// but get, list and watch.
func (e *Env) WriteActions() []clienttesting.Action {
	var writes []clienttesting.Action
	for _, a := range e.Client.Actions() {
		switch a.GetVerb() {
		case "get", "list", "watch":
		default:
			writes = append(writes, a)
		}
	}
	return writes
}

// ClearActions forgets the recorded actions, so that later assertions only
// see what happens next.
func (e *Env) ClearActions() { e.Client.ClearActions() }

// stop cancels the controllers and informers and waits for them to return.
func (e *Env) stop() {
	e.cancel()
	for _, done := range e.done {
		if err := <-done; err != nil {
			e.t.Errorf("controllertest: controller returned: %v", err)
		}
	}
	e.Informers.Shutdown()
}
