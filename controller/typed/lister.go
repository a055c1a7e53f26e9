package typed

import (
	"k8s.io/client-go/listers"
	"k8s.io/client-go/tools/cache"
)

// Lister reads T from an informer's store, as a generated lister does:
// List and Get across the store (Get by name alone for a cluster-scoped
// resource), Namespace for one namespace. Objects belong to the cache:
// copy them (DeepCopyObject) before changing them.
type Lister[T Object] struct {
	listers.ResourceIndexer[T]
}

// NewLister returns a Lister over indexer, an informer's store of T
// (informer.GetIndexer()). NotFound errors name resource.
func NewLister[T Object](indexer cache.Indexer, resource Resource) Lister[T] {
	return Lister[T]{listers.New[T](indexer, resource.GroupResource())}
}

// Namespace returns a lister of the objects in namespace.
func (l Lister[T]) Namespace(namespace string) listers.ResourceIndexer[T] {
	return listers.NewNamespaced(l.ResourceIndexer, namespace)
}
