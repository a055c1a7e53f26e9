package controller

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/controller/internal/tracing"
)

// Run waits for the watched informers and handlers to sync, then reconciles
// keys with Options.Workers workers until ctx is cancelled. Then it stops
// taking keys, hands back the keys held for their caches (see RecordWrite),
// waits for in-flight reconciles to return (their contexts stay
// live for up to Options.ShutdownTimeout), removes its informer handlers,
// shuts the queue down and returns.
//
// Run returns an error if the caches do not sync within
// Options.CacheSyncTimeout, if in-flight reconciles outlive the shutdown
// timeout, or if it was called before. A cancellation before the caches
// synced is a clean shutdown: Run returns nil.
func (c *Controller[K]) Run(ctx context.Context) error {
	c.mu.Lock()
	if c.started {
		c.mu.Unlock()
		return fmt.Errorf("controller %q: Run called twice", c.name)
	}
	c.started = true
	c.mu.Unlock()
	log := c.logger(ctx)
	if tp := tracing.ProviderFrom(ctx); tp != nil && c.tracer.Load() == nil {
		c.useTracerProvider(tp) // the manager's, under Options.TracerProvider
	}
	defer c.removeHandlers(log)
	defer c.queue.ShutDown()
	if c.debounce != nil {
		defer c.debounce.stop()
	}

	log.Info("Starting controller", "workers", c.workers)
	if err := c.WaitForSync(ctx); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	c.metrics.maxWorkers.Set(float64(c.workers))

	// Reconciles keep the values of ctx but not its cancellation, so that a
	// shutdown lets them finish; cancelWork ends them if they take too long.
	workCtx, cancelWork := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWork()
	var workers sync.WaitGroup
	for range c.workers {
		workers.Go(func() {
			for c.processNextWorkItem(workCtx, log) {
			}
		})
	}
	c.synced.Store(true)
	defer c.synced.Store(false)

	<-ctx.Done()
	log.Info("Stopping controller, waiting for in-flight reconciles")
	c.stopping.Store(true)
	c.readYourWrites.Stop() // a held key waits for caches, not for work
	c.queue.ShutDown()
	finished := make(chan struct{})
	go func() {
		workers.Wait()
		close(finished)
	}()
	timer := time.NewTimer(c.shutdownTimeout)
	defer timer.Stop()
	select {
	case <-finished:
		log.Info("Controller stopped")
		return nil
	case <-timer.C:
		cancelWork()
		return fmt.Errorf("controller %q: %d reconciles still running %s after shutdown began; their contexts are cancelled",
			c.name, c.inFlight.Load(), c.shutdownTimeout)
	}
}

// WaitForSync waits, at most Options.CacheSyncTimeout, until every watched
// informer has synced and delivered its initial list to the controller's
// handlers. Run calls it; tests that drive a controller by hand call it
// after starting their informers.
func (c *Controller[K]) WaitForSync(ctx context.Context) error {
	c.mu.Lock()
	checkers := make([]cache.DoneChecker, 0, len(c.watches))
	for _, w := range c.watches {
		checkers = append(checkers, w.registration.HasSyncedChecker())
	}
	c.mu.Unlock()
	if len(checkers) == 0 {
		return nil
	}

	syncCtx, cancel := context.WithTimeout(ctx, c.cacheSyncTimeout)
	defer cancel()
	if cache.WaitFor(syncCtx, "", checkers...) {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("controller %q: waiting for caches to sync: %w", c.name, err)
	}
	var pending []string
	for _, ch := range checkers {
		select {
		case <-ch.Done():
		default:
			pending = append(pending, ch.Name())
		}
	}
	return fmt.Errorf("controller %q: caches did not sync within %s (is the informer factory started?); waiting for: %s: %w",
		c.name, c.cacheSyncTimeout, strings.Join(pending, ", "), ErrCacheSyncTimeout)
}

// ErrCacheSyncTimeout is wrapped by the error WaitForSync and Run return
// when the caches do not sync in time.
var ErrCacheSyncTimeout = errors.New("cache sync timeout")

// removeHandlers unregisters the controller's informer handlers: the
// informers may outlive it.
func (c *Controller[K]) removeHandlers(log logr.Logger) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	for _, w := range c.watches {
		if err := w.informer.RemoveEventHandler(w.registration); err != nil {
			log.Error(err, "Removing informer event handler")
		}
	}
}
