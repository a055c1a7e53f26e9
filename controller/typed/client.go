package typed

import (
	"errors"
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/gentype"
	"k8s.io/client-go/rest"
)

// Object is what a resource's Go type must be: a pointer to a struct that
// embeds metav1.TypeMeta (json:",inline") and metav1.ObjectMeta
// (json:"metadata"), with a DeepCopyObject method, hand-written or from
// deepcopy-gen. Nothing else is generated.
type Object interface {
	runtime.Object
	metav1.Object
}

// Client reads and writes the objects of one resource as T, in one
// namespace or, for a cluster-scoped resource or a list across
// namespaces, in none. It has the methods of a generated clientset's typed
// client (Get, List, Watch, Create, Update, UpdateStatus, Patch, Delete,
// Apply and ApplyStatus, from client-go's gentype). Apply and ApplyStatus
// take an apply configuration of T (see ApplyConfiguration), as a generated
// client's do.
//
// A Client is safe for concurrent use. Namespace returns a Client for
// another namespace sharing the same REST client; the root Client from
// NewClient has no namespace.
type Client[T Object] struct {
	*gentype.ClientWithListAndApply[T, *List[T], ApplyConfiguration]

	resource  Resource
	rest      rest.Interface
	codec     runtime.ParameterCodec
	newObject func() T
}

// NewClient returns a Client for resource, talking to the API server of
// config (its host, credentials, rate limits and timeouts). T must be a
// pointer to a struct (see Object). The client speaks JSON, as custom
// resources do.
func NewClient[T Object](config *rest.Config, resource Resource) (*Client[T], error) {
	if config == nil {
		return nil, errors.New("typed: NewClient: config must not be nil")
	}
	if err := resource.validate(); err != nil {
		return nil, fmt.Errorf("typed: NewClient: %w", err)
	}
	newObject, err := objectCreator[T]()
	if err != nil {
		return nil, fmt.Errorf("typed: NewClient: %w", err)
	}
	scheme := runtime.NewScheme()
	addToScheme(scheme, resource, newObject)

	gv := resource.GroupVersion()
	cfg := rest.CopyConfig(config)
	cfg.GroupVersion = &gv
	cfg.APIPath = "/apis"
	if gv.Group == "" {
		cfg.APIPath = "/api"
	}
	cfg.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	cfg.ContentType = runtime.ContentTypeJSON
	cfg.AcceptContentTypes = runtime.ContentTypeJSON
	if cfg.UserAgent == "" {
		cfg.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	restClient, err := rest.RESTClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("typed: NewClient: %w", err)
	}
	c := &Client[T]{resource: resource, rest: restClient, codec: runtime.NewParameterCodec(scheme), newObject: newObject}
	return c.Namespace(""), nil
}

// objectCreator returns a function that makes a new, empty T, or an error
// if T is not a pointer to a struct.
func objectCreator[T Object]() (func() T, error) {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("%v is not a pointer to a struct", t)
	}
	elem := t.Elem()
	return func() T { return reflect.New(elem).Interface().(T) }, nil
}

// AddToScheme registers T and List[T] under resource's kinds in scheme,
// with the option types (ListOptions, ...) of its group and version, as a
// generated AddToScheme does: for a client-go object tracker
// (controllertest.NewTypedClient) or a codec of one's own. It fails if
// resource is incomplete or T is not a pointer to a struct.
func AddToScheme[T Object](scheme *runtime.Scheme, resource Resource) error {
	if err := resource.validate(); err != nil {
		return fmt.Errorf("typed: AddToScheme: %w", err)
	}
	newObject, err := objectCreator[T]()
	if err != nil {
		return fmt.Errorf("typed: AddToScheme: %w", err)
	}
	addToScheme(scheme, resource, newObject)
	return nil
}

// addToScheme registers T and List[T] under the resource's kinds, and the
// option types that encode query parameters. NewClient uses a scheme of its
// own: nothing global is touched.
func addToScheme[T Object](scheme *runtime.Scheme, resource Resource, newObject func() T) {
	gv := resource.GroupVersion()
	scheme.AddKnownTypeWithName(gv.WithKind(resource.Kind), newObject())
	scheme.AddKnownTypeWithName(gv.WithKind(resource.Kind+"List"), &List[T]{})
	metav1.AddToGroupVersion(scheme, gv)
}

// Namespace returns a Client for the objects in namespace: "" for a
// cluster-scoped resource, or to list and watch a namespaced one across
// all namespaces. The API server refuses a namespace for a cluster-scoped
// resource.
func (c *Client[T]) Namespace(namespace string) *Client[T] {
	n := *c
	n.ClientWithListAndApply = gentype.NewClientWithListAndApply[T, *List[T], ApplyConfiguration](
		c.resource.Resource, c.rest, c.codec, namespace, c.newObject,
		func() *List[T] { return &List[T]{} })
	return &n
}

// Resource returns the resource the client serves.
func (c *Client[T]) Resource() Resource { return c.resource }

// New returns a new, empty T.
func (c *Client[T]) New() T { return c.newObject() }
