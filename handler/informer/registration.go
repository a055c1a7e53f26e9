package informer

import (
	"fmt"
	"time"

	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
)

// registration is one handler added to an Informer. Its fields other than
// handler and informer are guarded by the informer's mu.
type registration struct {
	informer  *Informer
	handler   cache.ResourceEventHandler
	requested time.Duration // what the handler asked for
	resync    time.Duration // what it gets (see effectiveResync); 0: never
	nextSync  time.Time
	due       bool // chosen for the resync being delivered
}

// HasSynced reports whether the informer has synced: a handler sees the
// store's objects before AddEventHandler returns, so nothing of the first
// list is still on its way to it.
func (r *registration) HasSynced() bool { return r.informer.HasSynced() }

// HasSyncedChecker returns a DoneChecker done when HasSynced is true.
func (r *registration) HasSyncedChecker() cache.DoneChecker { return r.informer.HasSyncedChecker() }

// AddEventHandler adds a handler with the informer's default resync period.
func (i *Informer) AddEventHandler(handler cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	return i.AddEventHandlerWithOptions(handler, cache.HandlerOptions{})
}

// AddEventHandlerWithResyncPeriod adds a handler resynced every
// resyncPeriod (0: never).
func (i *Informer) AddEventHandlerWithResyncPeriod(handler cache.ResourceEventHandler, resyncPeriod time.Duration) (cache.ResourceEventHandlerRegistration, error) {
	return i.AddEventHandlerWithOptions(handler, cache.HandlerOptions{ResyncPeriod: &resyncPeriod})
}

// AddEventHandlerWithOptions adds a handler. If the informer already holds
// objects, the handler sees each of them as an OnAdd with isInInitialList
// set before this returns, on the caller's goroutine.
//
// Resync periods follow client-go's rules: an informer made without a
// resync period (Options.ResyncPeriod) never resyncs; a period shorter
// than the informer's resync tick shortens the tick before Run and is
// raised to the tick after.
func (i *Informer) AddEventHandlerWithOptions(handler cache.ResourceEventHandler, opts cache.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.stopped.Load() {
		return nil, fmt.Errorf("informer: handler %v not added: the informer has stopped", handler)
	}
	logger := ptr.Deref(opts.Logger, klog.Background())
	requested := clampResync(ptr.Deref(opts.ResyncPeriod, i.defaultResync))
	if requested > 0 && requested < i.resyncCheck {
		if i.started.Load() {
			logger.Info("Warning: resync period is shorter than the running informer's resync tick, using the tick",
				"resyncPeriod", requested, "resyncCheckPeriod", i.resyncCheck)
		} else {
			i.resyncCheck = requested
			for _, r := range i.handlers {
				r.resync = effectiveResync(r.requested, i.resyncCheck)
			}
		}
	}
	resync := effectiveResync(requested, i.resyncCheck)
	if requested > 0 && resync == 0 {
		logger.Info("Warning: the informer was made without a resync period, so the handler's is ignored", "resyncPeriod", requested)
	}

	reg := &registration{informer: i, handler: handler, requested: requested, resync: resync, nextSync: i.clock.Now().Add(resync)}
	i.handlers = append(i.handlers, reg)
	for _, obj := range i.indexer.List() {
		handler.OnAdd(obj, true)
	}
	return reg, nil
}

// RemoveEventHandler removes a handler: once it returns, the handler sees
// no more events. Removing one twice is not an error.
func (i *Informer) RemoveEventHandler(handle cache.ResourceEventHandlerRegistration) error {
	reg, ok := handle.(*registration)
	if !ok || reg.informer != i {
		return fmt.Errorf("informer: %T is not a registration of this informer", handle)
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	for n, r := range i.handlers {
		if r == reg {
			i.handlers = append(i.handlers[:n:n], i.handlers[n+1:]...)
			break
		}
	}
	return nil
}

// effectiveResync is a handler's resync period given the informer's resync
// tick, client-go's rule: none without a tick, never shorter than the tick.
func effectiveResync(requested, tick time.Duration) time.Duration {
	if requested == 0 || tick == 0 {
		return 0
	}
	return max(requested, tick)
}

// resyncDue is the reflector's ShouldResync: it marks the handlers whose
// resync period has passed, which the next Resync serves.
func (i *Informer) resyncDue() bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	now := i.clock.Now()
	due := false
	for _, r := range i.handlers {
		if r.resync > 0 && !now.Before(r.nextSync) {
			r.due = true
			r.nextSync = now.Add(r.resync)
			due = true
		}
	}
	return due
}
