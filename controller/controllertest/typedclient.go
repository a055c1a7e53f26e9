package controllertest

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/gentype"
	clienttesting "k8s.io/client-go/testing"

	"github.com/ctrlkit/ctrlkit/controller/typed"
)

// TypedClient is a fake of a typed.Client for one custom resource, what
// the fake clientset is for the built-in kinds: client-go's fake typed
// client (gentype) on an object tracker of T, with the API server's write
// semantics of InstallAPISemantics (resourceVersion, conflicts, generation,
// the status subresource, uid, generateName).
//
// Namespace returns a client with the verbs a reconciler writes with (Get,
// List, Watch, Create, Update, UpdateStatus, Patch, Delete, Apply,
// ApplyStatus); the embedded Fake records the actions and takes reactors,
// as a fake clientset's does; Tracker reads and seeds the stored objects
// directly.
//
// Every write records managed fields, and server-side apply merges as the
// API server does for a custom resource (k8s.io/apimachinery's
// managedfields): a field manager owns what its apply configuration sets
// and no more, an apply of another manager's field conflicts (409) unless
// forced, and a field its manager stops applying is removed unless another
// owns it. An apply on the status subresource applies only the status.
// There is no CRD schema: structs merge field by field, but a list is
// atomic, where the server merges one with listType=map by key.
type TypedClient[T typed.Object] struct {
	*clienttesting.Fake
	tracker  clienttesting.ObjectTracker
	resource typed.Resource
	newItem  func() T
}

// NewTypedClient returns a fake client of resource's objects, as T, with
// objects stored as a server would have stored them (each with a
// resourceVersion; objects is not modified). It fails if resource is
// incomplete, T is not a pointer to a struct, or an object cannot be
// stored (two of one name).
func NewTypedClient[T typed.Object](resource typed.Resource, objects ...T) (*TypedClient[T], error) {
	scheme := runtime.NewScheme()
	if err := typed.AddToScheme[T](scheme, resource); err != nil {
		return nil, fmt.Errorf("controllertest: NewTypedClient: %w", err)
	}
	tracker := clienttesting.NewObjectTracker(scheme, serializer.NewCodecFactory(scheme).UniversalDecoder())
	server := newAPIServer()
	seeds := make([]runtime.Object, len(objects))
	for i, obj := range objects {
		seeds[i] = obj
	}
	for _, obj := range server.seed(seeds) {
		if err := tracker.Add(obj); err != nil {
			return nil, fmt.Errorf("controllertest: NewTypedClient: %w", err)
		}
	}
	fields, err := newFieldManagers(scheme, resource.GroupVersionKind())
	if err != nil {
		return nil, fmt.Errorf("controllertest: NewTypedClient: %w", err)
	}
	c := &TypedClient[T]{Fake: &clienttesting.Fake{}, tracker: tracker, resource: resource}
	c.AddReactor("*", "*", clienttesting.ObjectReaction(tracker))
	server.install(c.Fake, tracker, fields) // in front, and serves watches
	c.newItem = func() T {
		obj, _ := scheme.New(resource.GroupVersionKind()) // registered above
		return obj.(T)
	}
	return c, nil
}

// Namespace returns a client of the objects in namespace: "" for a
// cluster-scoped resource, or to list and watch across namespaces.
func (c *TypedClient[T]) Namespace(namespace string) *gentype.FakeClientWithListAndApply[T, *typed.List[T], typed.ApplyConfiguration] {
	return gentype.NewFakeClientWithListAndApply[T, *typed.List[T], typed.ApplyConfiguration](c.Fake, namespace, c.resource.GroupVersionResource(), c.resource.GroupVersionKind(),
		c.newItem, func() *typed.List[T] { return &typed.List[T]{} },
		func(dst, src *typed.List[T]) { dst.ListMeta = src.ListMeta },
		func(l *typed.List[T]) []T { return l.Items },
		func(l *typed.List[T], items []T) { l.Items = items })
}

// Tracker is the store behind the client: seed objects or read what was
// written without recording an action.
func (c *TypedClient[T]) Tracker() clienttesting.ObjectTracker { return c.tracker }

// Resource returns the resource the client serves.
func (c *TypedClient[T]) Resource() typed.Resource { return c.resource }
