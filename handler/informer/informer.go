package informer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// Options configure an Informer. The zero value is valid: no resync, a
// namespace index, the real clock.
type Options struct {
	// ResyncPeriod is the resync period of handlers added without one
	// (AddEventHandler). Zero means no resync. Periods under one second are
	// raised to one second, as client-go does.
	ResyncPeriod time.Duration

	// Indexers are added to the store besides cache.NamespaceIndex, which
	// is always there.
	Indexers cache.Indexers

	// ObjectDescription names the objects in logs ("configmaps"); it
	// defaults to the Go type of the example object.
	ObjectDescription string

	// Clock is for tests; the real clock when nil.
	Clock clock.Clock
}

// Informer is a cache.SharedIndexInformer that calls its handlers on the
// goroutine that applies watch events to its store. See the package
// documentation for the contract this puts on handlers.
//
// Invariant: mu is held from the moment a change is applied to the store
// until every handler has seen it, and while handlers are added or removed.
// So each handler sees each change exactly once, in order, and a handler
// that joins late sees the store as it was when it joined plus every later
// change.
type Informer struct {
	lw          cache.ListerWatcher
	example     runtime.Object
	description string
	clock       clock.Clock
	indexer     indexer

	synced    chan struct{} // closed once the first list has been delivered
	started   atomic.Bool
	stopped   atomic.Bool
	reflector atomic.Pointer[cache.Reflector]

	mu                sync.Mutex
	handlers          []*registration
	defaultResync     time.Duration
	resyncCheck       time.Duration // the reflector's resync tick: the least handler period
	transform         cache.TransformFunc
	watchErrorHandler cache.WatchErrorHandlerWithContext
	hasSynced         bool
}

var _ cache.SharedIndexInformer = (*Informer)(nil)

// New returns an Informer for the objects lw lists and watches, of the type
// of example (e.g. &corev1.ConfigMap{}). Run starts it.
func New(lw cache.ListerWatcher, example runtime.Object, opts Options) *Informer {
	indexers := cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}
	for name, f := range opts.Indexers {
		indexers[name] = f
	}
	description := opts.ObjectDescription
	if description == "" {
		description = fmt.Sprintf("%T", example)
	}
	c := opts.Clock
	if c == nil {
		c = clock.RealClock{}
	}
	resync := clampResync(opts.ResyncPeriod)
	return &Informer{
		lw:                lw,
		example:           example,
		description:       description,
		clock:             c,
		indexer:           newIndexer(indexers),
		synced:            make(chan struct{}),
		defaultResync:     resync,
		resyncCheck:       resync,
		watchErrorHandler: cache.DefaultWatchErrorHandler,
	}
}

// minResync is client-go's lower bound on a handler's resync period.
const minResync = time.Second

func clampResync(d time.Duration) time.Duration {
	if d > 0 && d < minResync {
		return minResync
	}
	return max(d, 0)
}

// Backoff between failed list-and-watch attempts: client-go's reflector
// defaults, so an API server outage sees the same retry rate from either
// informer.
var listWatchBackoff = wait.Backoff{
	Duration: 800 * time.Millisecond,
	Cap:      30 * time.Second,
	Steps:    math.MaxInt32,
	Factor:   2,
	Jitter:   1,
}

const listWatchBackoffReset = 2 * time.Minute

// Run runs the informer until stopCh is closed.
func (i *Informer) Run(stopCh <-chan struct{}) {
	i.RunWithContext(wait.ContextForChannel(stopCh))
}

// RunWithContext lists and watches until ctx is cancelled, re-listing with
// backoff after every failure. An informer runs once: a second call logs and
// returns.
func (i *Informer) RunWithContext(ctx context.Context) {
	logger := klog.FromContext(ctx)
	if !i.started.CompareAndSwap(false, true) {
		logger.Info("Warning: informer already started, not running it again", "type", i.description)
		return
	}
	defer i.stopped.Store(true)

	i.mu.Lock()
	resync, onWatchError := i.resyncCheck, i.watchErrorHandler
	i.mu.Unlock()

	r := cache.NewReflectorWithOptions(i.lw, i.example, (*store)(i), cache.ReflectorOptions{
		Name:            "ctrlkit informer " + i.description,
		TypeDescription: i.description,
		ResyncPeriod:    resync,
		Clock:           i.clock,
	})
	r.ShouldResync = i.resyncDue
	i.reflector.Store(r)

	// The reflector's own Run loop cannot take our watch error handler (the
	// field is unexported), so this is that loop: the same backoff, the
	// same sliding reset.
	delay := listWatchBackoff.DelayWithReset(i.clock, listWatchBackoffReset)
	_ = delay.Until(ctx, true, true, func(ctx context.Context) (bool, error) {
		if err := r.ListAndWatchWithContext(ctx); err != nil {
			onWatchError(ctx, r, err)
		}
		return false, nil
	})
}

// HasSynced reports whether the first list has reached the store and every
// handler registered at the time.
func (i *Informer) HasSynced() bool {
	select {
	case <-i.synced:
		return true
	default:
		return false
	}
}

// HasSyncedChecker returns a DoneChecker done when HasSynced is true.
func (i *Informer) HasSyncedChecker() cache.DoneChecker {
	return syncedChecker{name: "informer " + i.description, done: i.synced}
}

// IsStopped reports whether Run has returned.
func (i *Informer) IsStopped() bool { return i.stopped.Load() }

// LastSyncResourceVersion is the resourceVersion of the last list or watch
// event applied, or "" before Run.
func (i *Informer) LastSyncResourceVersion() string {
	if r := i.reflector.Load(); r != nil {
		return r.LastSyncResourceVersion()
	}
	return ""
}

// GetStore returns the informer's cache.
func (i *Informer) GetStore() cache.Store { return i.indexer }

// GetIndexer returns the informer's cache with its indexes.
func (i *Informer) GetIndexer() cache.Indexer { return i.indexer }

// AddIndexers adds indexes to the cache, before or after Run.
func (i *Informer) AddIndexers(indexers cache.Indexers) error {
	if i.stopped.Load() {
		return errors.New("informer: indexers not added: the informer has stopped")
	}
	return i.indexer.AddIndexers(indexers)
}

// GetController returns a cache.Controller view of the informer, for code
// that still asks for one.
func (i *Informer) GetController() cache.Controller { return controllerView{i} }

// SetTransform sets a function applied to every object before it is stored
// and handed to handlers. It must be idempotent: with watch-list streaming
// the reflector applies it too. Only before Run.
func (i *Informer) SetTransform(transform cache.TransformFunc) error {
	return i.beforeRun(func() { i.transform = transform })
}

// SetWatchErrorHandler sets the function called when a list or watch fails
// (before the informer backs off and re-lists). Only before Run.
func (i *Informer) SetWatchErrorHandler(handler cache.WatchErrorHandler) error {
	return i.SetWatchErrorHandlerWithContext(func(_ context.Context, r *cache.Reflector, err error) {
		handler(r, err)
	})
}

// SetWatchErrorHandlerWithContext is SetWatchErrorHandler with the
// informer's context. Only before Run.
func (i *Informer) SetWatchErrorHandlerWithContext(handler cache.WatchErrorHandlerWithContext) error {
	return i.beforeRun(func() { i.watchErrorHandler = handler })
}

func (i *Informer) beforeRun(set func()) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.started.Load() {
		return errors.New("informer: already started")
	}
	set()
	return nil
}

// syncedChecker is a cache.DoneChecker over a channel.
type syncedChecker struct {
	name string
	done <-chan struct{}
}

func (c syncedChecker) Name() string          { return c.name }
func (c syncedChecker) Done() <-chan struct{} { return c.done }

// controllerView is the cache.Controller that GetController returns.
type controllerView struct{ i *Informer }

func (c controllerView) Run(stopCh <-chan struct{})          { c.i.Run(stopCh) }
func (c controllerView) RunWithContext(ctx context.Context)  { c.i.RunWithContext(ctx) }
func (c controllerView) HasSynced() bool                     { return c.i.HasSynced() }
func (c controllerView) HasSyncedChecker() cache.DoneChecker { return c.i.HasSyncedChecker() }
func (c controllerView) LastSyncResourceVersion() string     { return c.i.LastSyncResourceVersion() }
