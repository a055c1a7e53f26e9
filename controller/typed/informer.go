package typed

import (
	"context"
	"maps"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers/internalinterfaces"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// InformerOptions configure an Informer. The zero value watches every
// namespace, never resyncs, and indexes by namespace.
type InformerOptions struct {
	// Namespace limits the informer to one namespace; empty means all, or,
	// for NewSharedInformer, the factory's namespace.
	Namespace string
	// ResyncPeriod, when positive, redelivers every cached object as an
	// update this often. NewSharedInformer uses the factory's instead.
	ResyncPeriod time.Duration
	// Indexers are added to the namespace index (cache.NamespaceIndex).
	Indexers cache.Indexers
	// TweakListOptions edits every list and watch request, e.g. to set a
	// label selector. For NewSharedInformer it runs after the factory's.
	TweakListOptions func(*metav1.ListOptions)
}

// Informer is a shared informer of T and its lister, as a generated
// informer (factory.Apps().V1().Deployments()) offers them.
type Informer[T Object] struct {
	informer cache.SharedIndexInformer
	lister   Lister[T]
}

// NewInformer returns an informer of T's objects listed and watched with c.
// It is not started: run it with Informer().RunWithContext, or create it
// with NewSharedInformer so that a factory (and a manager running that
// factory) starts and stops it with the others.
func NewInformer[T Object](c *Client[T], opts InformerOptions) *Informer[T] {
	return newInformer(c, opts, opts.ResyncPeriod)
}

// InformerFactory is the part of client-go's informers.SharedInformerFactory
// that hosts informers of other types.
type InformerFactory interface {
	InformerFor(obj runtime.Object, newFunc internalinterfaces.NewInformerFunc) cache.SharedIndexInformer
}

// NewSharedInformer returns factory's informer of T, creating it with
// NewInformer on first use (with the factory's resync period for T and its
// transform), so that factory.Start starts it, WaitForCacheSync waits for
// it, Shutdown waits for it to stop, and every caller in the process
// shares one watch. The factory keys informers by type: a later call for
// the same T returns the first informer, whatever its options.
//
// Like a generated informer, it lists and watches within the factory's
// namespace (informers.WithNamespace) and with the factory's
// tweak-list-options (informers.WithTweakListOptions), then opts'; see
// ScopedInformerFactory for factories other than client-go's.
func NewSharedInformer[T Object](factory InformerFactory, c *Client[T], opts InformerOptions) *Informer[T] {
	namespace, factoryTweak := factoryScope(factory)
	if opts.Namespace == "" {
		opts.Namespace = namespace
	}
	if own := opts.TweakListOptions; factoryTweak != nil {
		opts.TweakListOptions = func(o *metav1.ListOptions) {
			factoryTweak(o)
			if own != nil {
				own(o)
			}
		}
	}
	informer := factory.InformerFor(c.New(), func(_ kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		return newInformer(c, opts, resync).informer
	})
	return &Informer[T]{informer: informer, lister: NewLister[T](informer.GetIndexer(), c.resource)}
}

func newInformer[T Object](c *Client[T], opts InformerOptions, resync time.Duration) *Informer[T] {
	client := c.Namespace(opts.Namespace)
	tweak := func(o *metav1.ListOptions) {
		if opts.TweakListOptions != nil {
			opts.TweakListOptions(o)
		}
	}
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			tweak(&o)
			return client.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			tweak(&o)
			return client.Watch(ctx, o)
		},
	}
	indexers := cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}
	maps.Copy(indexers, opts.Indexers)
	informer := cache.NewSharedIndexInformerWithOptions(lw, c.New(), cache.SharedIndexInformerOptions{
		ResyncPeriod:      resync,
		Indexers:          indexers,
		ObjectDescription: c.resource.GroupResource().String(),
	})
	return &Informer[T]{informer: informer, lister: NewLister[T](informer.GetIndexer(), c.resource)}
}

// Informer returns the shared informer, for controller.Watch and
// cache.WaitForCacheSync.
func (i *Informer[T]) Informer() cache.SharedIndexInformer { return i.informer }

// Lister returns the lister over the informer's store.
func (i *Informer[T]) Lister() Lister[T] { return i.lister }
