package ring

import (
	"context"
	"reflect"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"
)

// ListerWatcherClient is the List and Watch of a typed client-go
// resource client, such as client.AppsV1().Deployments(""), whose lists
// are of type L.
type ListerWatcherClient[L runtime.Object] interface {
	List(ctx context.Context, opts metav1.ListOptions) (L, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// FromClient is the ListWatch of a typed resource client:
//
//	FromClient[*appsv1.DeploymentList](client.AppsV1().Deployments(""))
func FromClient[L runtime.Object](c ListerWatcherClient[L]) *cache.ListWatch {
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return c.List(ctx, opts)
		},
		WatchFuncWithContext: c.Watch,
	}
}

// Informer registers in factory, for obj's type, an informer that lists
// and watches only ring's target range (ListWatch(lw, ring, scope)), with
// the namespace index client-go's typed informers have. Call it before
// anything asks the factory for that type: from then on the factory's
// typed accessors (factory.Apps().V1().Deployments()) and their listers
// return the sharded informer, so that existing controller constructors
// use it unchanged. The factory's transform (WithTransform) applies.
// The ring admits a key (Acquire) only once this informer has listed the
// key's range and its cache holds what the list returned: every
// informer registered here must be started, or the ring's keys stay
// Listing. With the ring's Options.Registry, the informer's store size is
// the gauge ctrlkit_shard_cached_objects{ring, resource}.
//
//	Informer(factory, &appsv1.Deployment{},
//		FromClient[*appsv1.DeploymentList](client.AppsV1().Deployments("")), ring, Namespaced)
func Informer(factory informers.SharedInformerFactory, obj runtime.Object, lw cache.ListerWatcherWithContext, ring *Ring, scope Scope) cache.SharedIndexInformer {
	return factory.InformerFor(obj, func(_ kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		slw := newListWatch(lw, ring, scope)
		slw.cache = ring.addCache()
		slw.example = obj
		informer := cache.NewSharedIndexInformer(slw, obj, resync,
			cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		ring.trackListed(informer, slw.cache)
		ring.metrics.cachedObjects(resourceName(obj), informer.GetStore(), ring.log)
		slw.cache.indexer = informer.GetIndexer()
		return informer
	})
}

// resourceName names obj's resource in metrics as group and plural
// ("deployments.apps", "pods"), guessed from its kind in client-go's
// scheme, or by its Go type for types the scheme does not know.
func resourceName(obj runtime.Object) string {
	gvks, _, err := scheme.Scheme.ObjectKinds(obj)
	if err != nil || len(gvks) == 0 {
		return strings.ToLower(reflect.Indirect(reflect.ValueOf(obj)).Type().Name())
	}
	plural, _ := meta.UnsafeGuessKindToResource(gvks[0])
	return plural.GroupResource().String()
}
