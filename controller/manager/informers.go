package manager

// InformerFactory is what the Manager needs from an informer factory. Wrap
// client-go's factories with Factory; implement it directly for anything
// else that starts caches.
//
// The Manager calls Start once, when Run begins, before any runnable
// starts (or at once, for a factory added to a running Manager), and closes
// stopCh during shutdown (or when the factory's Optional part stops).
// WaitForCacheSync blocks until every started informer has synced (true)
// or stopCh is closed (false).
//
// A client-go factory starts the informers requested before its Start:
// request them before Run, or before adding the factory to a running
// Manager (the builder does, and so does a controller's Watch). A runnable
// that requests one later must start it itself, as client-go allows, by
// calling the factory's Start again with its own ctx.Done(); the Manager
// still stops and shuts the factory down.
type InformerFactory interface {
	Start(stopCh <-chan struct{})
	WaitForCacheSync(stopCh <-chan struct{}) bool
}

// ShutdownInformerFactory is an InformerFactory that can wait for its
// informers' goroutines to end after stopCh is closed. The Manager waits for
// it during graceful shutdown so that no informer outlives Run.
type ShutdownInformerFactory interface {
	InformerFactory
	Shutdown()
}

// TypedInformerFactory is the shape shared by client-go's informer factories:
// informers.SharedInformerFactory (K is reflect.Type),
// dynamicinformer.DynamicSharedInformerFactory and
// metadatainformer.SharedInformerFactory (K is schema.GroupVersionResource).
type TypedInformerFactory[K comparable] interface {
	Start(stopCh <-chan struct{})
	WaitForCacheSync(stopCh <-chan struct{}) map[K]bool
}

// Factory adapts a client-go informer factory to InformerFactory:
//
//	mgr.AddInformerFactory(manager.Factory(informers.NewSharedInformerFactory(client, 0)))
//
// If f also has a Shutdown method (all client-go factories do), the result
// is a ShutdownInformerFactory that forwards to it.
func Factory[K comparable](f TypedInformerFactory[K]) InformerFactory {
	a := factoryAdapter[K]{f: f}
	if s, ok := f.(interface{ Shutdown() }); ok {
		return shutdownFactoryAdapter[K]{factoryAdapter: a, shutdown: s.Shutdown}
	}
	return a
}

type factoryAdapter[K comparable] struct {
	f TypedInformerFactory[K]
}

func (a factoryAdapter[K]) Start(stopCh <-chan struct{}) { a.f.Start(stopCh) }

// WaitForCacheSync reports true only if every started informer synced: an
// empty map (nothing started) counts as synced.
func (a factoryAdapter[K]) WaitForCacheSync(stopCh <-chan struct{}) bool {
	for _, synced := range a.f.WaitForCacheSync(stopCh) {
		if !synced {
			return false
		}
	}
	return true
}

// String names the wrapped factory in logs and errors.
func (a factoryAdapter[K]) String() string { return typeName(a.f) }

type shutdownFactoryAdapter[K comparable] struct {
	factoryAdapter[K]
	shutdown func()
}

func (a shutdownFactoryAdapter[K]) Shutdown() { a.shutdown() }
