package sharding

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

// ResourceClient is the Get, List and Watch of a typed resource client
// whose objects are T and lists L: a client-go clientset's
// (client.AppsV1().Deployments("")) or a ctrlkit typed.Client's.
type ResourceClient[T, L runtime.Object] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	List(ctx context.Context, opts metav1.ListOptions) (L, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// Resource is one kind of object Shard gives a sharded informer: made by
// ResourceOf.
type Resource struct {
	object runtime.Object
	lw     cache.ListerWatcherWithContext
	scope  Scope
}

// ResourceOf is the resource c lists and watches, with its scope:
// Namespaced objects are sharded by namespace, ClusterScoped ones by name.
// c lists across namespaces (namespace ""); its objects' Go type is the
// informer's, the one the factory keys it by:
//
//	sharding.ResourceOf(client.AppsV1().Deployments(""), sharding.Namespaced)
//	sharding.ResourceOf(webApps, sharding.Namespaced) // a *typed.Client[*v1alpha1.WebApp]
func ResourceOf[T, L runtime.Object](c ResourceClient[T, L], scope Scope) Resource {
	return Resource{object: newObject[T](), lw: FromClient[L](c), scope: scope}
}

// newObject is a new T, or nil (refused by Shard) unless T is a pointer
// to a struct, as every API object type is.
func newObject[T runtime.Object]() runtime.Object {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil
	}
	return reflect.New(t.Elem()).Interface().(runtime.Object)
}

// Shard registers in factory, for each resource, an informer that lists
// and watches only ring's range (Informer), so that the factory's typed
// accessors (factory.Apps().V1().Deployments()), typed.NewSharedInformer
// and the listers built on them return the sharded informer. Call it right
// after creating the factory: it fails, naming the type, if the factory
// already holds an informer of that type, which would then stay unsharded.
// A nil ring registers nothing, so that a program shards its informers
// only when its manager runs a ring (manager.Options.Sharding):
//
//	err := sharding.Shard(factory, mgr.Ring(),
//		sharding.ResourceOf(client.AppsV1().Deployments(""), sharding.Namespaced),
//		sharding.ResourceOf(client.CoreV1().Services(""), sharding.Namespaced))
//
// The factory's namespace and tweak-list-options do not apply to these
// informers: each lists what its client lists, within ring's range. Its
// transform does.
func Shard(factory informers.SharedInformerFactory, ring *Ring, resources ...Resource) error {
	if ring == nil {
		return nil
	}
	var errs []error
	for _, r := range resources {
		if r.object == nil || r.lw == nil {
			errs = append(errs, errors.New("a zero Resource: make it with ResourceOf"))
			continue
		}
		if got := RingOf(Informer(factory, r.object, r.lw, ring, r.scope)); got != ring {
			errs = append(errs, fmt.Errorf("the factory already has an informer of %T that is not sharded by ring %q: call Shard before anything asks the factory for it", r.object, ring.opts.Name))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("sharding: %w", errors.Join(errs...))
	}
	return nil
}
