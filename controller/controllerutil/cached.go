package controllerutil

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Client is a typed client with everything the helpers here use;
// client-go's typed clients and typed.Client are ones.
type Client[T Object] interface {
	Getter[T]
	Creator[T]
	Updater[T]
	Patcher[T]
}

// NameGetter reads an object by name, as a lister for one namespace does
// (listers.Deployments(ns), typed.Lister's Namespace(ns)).
type NameGetter[T Object] interface {
	Get(name string) (T, error)
}

// Cached returns c with its reads served from lister, an informer's cache,
// so that CreateOrUpdate and CreateOrPatch cost no GET: the usual choice in
// a reconciler, which already watches what it owns. The cache may lag
// behind the server; a write based on a stale read fails with a Conflict
// (Update) and is retried, or (a create of an object the cache does not
// have yet) with AlreadyExists. controller.RecordWrite keeps a key from
// being reconciled on such a stale cache.
func Cached[T Object](lister NameGetter[T], c Client[T]) Client[T] {
	return cached[T]{Client: c, lister: lister}
}

type cached[T Object] struct {
	Client[T]
	lister NameGetter[T]
}

func (c cached[T]) Get(_ context.Context, name string, _ metav1.GetOptions) (T, error) {
	return c.lister.Get(name)
}
