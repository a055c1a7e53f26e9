package informer

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// ListWatcher is what a typed client offers for one resource, such as
// client.CoreV1().ConfigMaps(namespace): L is its list type.
type ListWatcher[L runtime.Object] interface {
	List(ctx context.Context, opts metav1.ListOptions) (L, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// ListWatch returns the cache.ListerWatcher of a typed client's resource,
// for New. clientset is the clientset the resource client came from: as
// with client-go's generated informers, a fake clientset tells the
// reflector to list and then watch, since it cannot stream a list.
func ListWatch[L runtime.Object](resource ListWatcher[L], clientset any) cache.ListerWatcher {
	return cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return resource.List(ctx, opts)
		},
		WatchFuncWithContext: resource.Watch,
	}, clientset)
}
