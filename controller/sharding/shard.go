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

	"github.com/ctrlkit/ctrlkit/controller/sharding/internal/ring"
)

// Scope tells how a resource's objects are sharded.
type Scope int

const (
	// Namespaced objects are sharded by namespace; the API server selects
	// them with a ShardSelector where it can (feature gate
	// ShardedListAndWatch), and the informer filters on the client side
	// where it cannot.
	Namespaced Scope = iota
	// ClusterScoped objects are sharded by name. The API server cannot
	// select by name, so they are listed and watched whole and filtered on
	// the client side: the cache still holds only the member's share.
	ClusterScoped
)

// ringScope is s as package ring has it.
func (s Scope) ringScope() ring.Scope {
	if s == ClusterScoped {
		return ring.ClusterScoped
	}
	return ring.Namespaced
}

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

// ResourceOf is the resource c lists and watches, with its scope. c lists
// across namespaces (namespace ""); its objects' Go type is the informer's,
// the one the factory keys it by:
//
//	sharding.ResourceOf(client.AppsV1().Deployments(""), sharding.Namespaced)
//	sharding.ResourceOf(webApps, sharding.Namespaced) // a *typed.Client[*v1alpha1.WebApp]
func ResourceOf[T, L runtime.Object](c ResourceClient[T, L], scope Scope) Resource {
	return Resource{object: newObject[T](), lw: ring.FromClient[L](c), scope: scope}
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
// and watches only ring's share, so that the factory's typed accessors
// (factory.Apps().V1().Deployments()), typed.NewSharedInformer and the
// listers built on them return the sharded informer. Call it right after
// creating the factory: it fails, naming the type, if the factory already
// holds an informer of that type, which would then stay unsharded. A nil
// ring registers nothing, so that a program shards its informers only when
// its manager runs a ring (manager.Options.Sharding):
//
//	err := sharding.Shard(factory, mgr.Ring(),
//		sharding.ResourceOf(client.AppsV1().Deployments(""), sharding.Namespaced),
//		sharding.ResourceOf(client.CoreV1().Services(""), sharding.Namespaced))
//
// The ring admits a key only once every informer registered here has
// listed the key's range into its cache: each must be started. The
// factory's namespace and tweak-list-options do not apply to these
// informers (each lists what its client lists, within ring's share); its
// transform does.
func Shard(factory informers.SharedInformerFactory, r *Ring, resources ...Resource) error {
	if r == nil {
		return nil
	}
	var errs []error
	for _, res := range resources {
		if res.object == nil || res.lw == nil {
			errs = append(errs, errors.New("a zero Resource: make it with ResourceOf"))
			continue
		}
		if !r.Shards(ring.Informer(factory, res.object, res.lw, r.member, res.scope.ringScope())) {
			errs = append(errs, fmt.Errorf("the factory already has an informer of %T that is not sharded by ring %q: call Shard before anything asks the factory for it", res.object, r.Name()))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("sharding: %w", errors.Join(errs...))
	}
	return nil
}
