package typed

import (
	"errors"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Resource names a resource's REST endpoint and the kind it serves, as a
// CustomResourceDefinition declares them: group, version, plural name,
// kind, and whether objects live in namespaces.
type Resource struct {
	// Group is the API group, e.g. "example.ctrlkit.dev". Empty is the
	// core group, served under /api.
	Group string
	// Version is the served version, e.g. "v1alpha1".
	Version string
	// Resource is the plural, lower-case name in the URL, e.g. "webapps".
	Resource string
	// Kind is the object's kind, e.g. "WebApp"; its list is Kind+"List".
	Kind string
	// Namespaced is true for objects that live in a namespace (the CRD's
	// scope: Namespaced), false for cluster-scoped ones.
	Namespaced bool
}

// GroupVersion returns the resource's group and version.
func (r Resource) GroupVersion() schema.GroupVersion {
	return schema.GroupVersion{Group: r.Group, Version: r.Version}
}

// GroupVersionResource returns the resource as dynamic clients and
// RESTMappers name it.
func (r Resource) GroupVersionResource() schema.GroupVersionResource {
	return r.GroupVersion().WithResource(r.Resource)
}

// GroupResource returns the resource without its version, as NotFound
// errors name it.
func (r Resource) GroupResource() schema.GroupResource {
	return schema.GroupResource{Group: r.Group, Resource: r.Resource}
}

// GroupVersionKind returns the kind of the resource's objects, as owner
// references and apply requests spell it.
func (r Resource) GroupVersionKind() schema.GroupVersionKind {
	return r.GroupVersion().WithKind(r.Kind)
}

// GroupKind returns the kind without its version, as
// handler.ForControllerOf matches owners.
func (r Resource) GroupKind() schema.GroupKind {
	return schema.GroupKind{Group: r.Group, Kind: r.Kind}
}

// Scope returns meta.RESTScopeNamespace or meta.RESTScopeRoot, as a
// RESTMapper's mapping does and handler.ForControllerOf expects.
func (r Resource) Scope() meta.RESTScope {
	if r.Namespaced {
		return meta.RESTScopeNamespace
	}
	return meta.RESTScopeRoot
}

func (r Resource) validate() error {
	var errs []error
	if r.Version == "" {
		errs = append(errs, errors.New("Resource.Version is required"))
	}
	if r.Resource == "" {
		errs = append(errs, errors.New("Resource.Resource is required"))
	}
	if r.Kind == "" {
		errs = append(errs, errors.New("Resource.Kind is required"))
	}
	return errors.Join(errs...)
}
