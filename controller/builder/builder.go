package builder

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/handler"
)

// Registrar is where Complete registers the controller:
// *manager.Manager.
type Registrar interface {
	Add(r manager.Runnable) error
}

// Builder collects a controller's watches and builds it. Its methods
// record and return the Builder, so they chain; mistakes are reported by
// Build or Complete, all at once. A Builder builds one controller.
type Builder[K comparable] struct {
	mgr  Registrar
	name string
	key  func(metav1.Object) K

	primary *source[K] // For
	kind    schema.GroupKind
	scope   meta.RESTScope
	owned   []source[K]
	watches []source[K]
	filter  []handler.Predicate
	opts    controller.Options[K]
	errs    []error
	built   bool

	sharded bool                             // Sharded or ShardedBy
	shardOf func(K) (namespace, name string) // ShardedBy's
}

// source is one informer and the handler that maps its events.
type source[K comparable] struct {
	what       string // "For Kind.group", "Owns #1", ...: names it in errors
	informer   cache.SharedInformer
	handler    handler.Handler[K]
	predicates []handler.Predicate // Owns only: its handler needs the primary kind, known at Build
}

// ControllerManagedBy starts a controller named name (unique in the
// manager; it labels logs and metrics) whose keys are key(object) of its
// primary objects: handler.ObjectKey for "namespace/name" strings,
// handler.ObjectNamespacedName for types.NamespacedName. Complete adds it
// to mgr.
func ControllerManagedBy[K comparable](mgr Registrar, name string, key func(metav1.Object) K) *Builder[K] {
	b := &Builder[K]{mgr: mgr, name: name, key: key}
	if key == nil {
		b.errs = append(b.errs, errors.New("key must not be nil"))
	}
	return b
}

// For sets the primary kind, the one the controller reconciles: its
// objects' events enqueue key(object). kind and scope say what it is, for
// Owns: schema.GroupKind{Group: "apps", Kind: "Deployment"} with
// meta.RESTScopeNamespace, or typed.Resource's GroupKind() and Scope().
// predicates filter its events only.
func (b *Builder[K]) For(informer cache.SharedIndexInformer, kind schema.GroupKind, scope meta.RESTScope, predicates ...handler.Predicate) *Builder[K] {
	if b.primary != nil {
		b.errs = append(b.errs, errors.New("For called twice: a controller has one primary kind; watch others with Watches"))
		return b
	}
	if scope == nil || (scope.Name() != meta.RESTScopeNameNamespace && scope.Name() != meta.RESTScopeNameRoot) {
		b.errs = append(b.errs, fmt.Errorf("For %s: scope must be meta.RESTScopeNamespace or meta.RESTScopeRoot, got %v", kind, scope))
		return b
	}
	b.primary = &source[K]{what: "For " + kind.String(), informer: informer,
		handler: handler.ForObject(b.key).WithPredicates(predicates...)}
	b.kind, b.scope = kind, scope
	return b
}

// Owns watches a kind the primary kind controls: an object's event
// enqueues the key of its controller owner (the owner reference with
// controller: true, as controllerutil.SetControllerReference sets it) if
// that owner is of the primary kind and still exists in the primary
// informer's cache with the referenced UID (handler.ForControllerOf). A
// cluster-scoped primary kind owns objects in any namespace. predicates
// filter this kind's events only.
func (b *Builder[K]) Owns(informer cache.SharedInformer, predicates ...handler.Predicate) *Builder[K] {
	b.owned = append(b.owned, source[K]{what: fmt.Sprintf("Owns #%d", len(b.owned)+1), informer: informer, predicates: predicates})
	return b
}

// Watches watches any informer with a handler that maps its events to
// keys: handler.Map, handler.MapEvent, handler.ForControllerOf for an owner
// of another kind, with their predicates.
func (b *Builder[K]) Watches(informer cache.SharedInformer, h handler.Handler[K]) *Builder[K] {
	b.watches = append(b.watches, source[K]{what: fmt.Sprintf("Watches #%d", len(b.watches)+1), informer: informer, handler: h})
	return b
}

// WithEventFilter adds predicates that every watch's events must pass, on
// top of each watch's own.
func (b *Builder[K]) WithEventFilter(predicates ...handler.Predicate) *Builder[K] {
	b.filter = append(b.filter, predicates...)
	return b
}

// WithOptions sets the controller's options (workers, rate limiter,
// metrics registry, ...), as controller.New takes them.
func (b *Builder[K]) WithOptions(opts controller.Options[K]) *Builder[K] {
	b.opts = opts
	return b
}

// Build returns the controller with its watches, without registering it
// anywhere: run it yourself, after starting its informers.
func (b *Builder[K]) Build(r controller.Reconciler[K]) (*controller.Controller[K], error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	b.built = true
	c, err := controller.New(b.name, r, b.opts)
	if err != nil {
		return nil, err
	}
	for _, s := range b.sources() {
		if err := c.Watch(s.informer, s.handler.WithPredicates(b.filter...)); err != nil {
			return nil, fmt.Errorf("builder: controller %q: %s: %w", b.name, s.what, err)
		}
	}
	return c, nil
}

// Complete builds the controller and adds it to the manager, which runs it
// (behind leader election unless Options.NeedLeaderElection is false, or
// Sharded) and starts the informers of the factories added to it with
// AddInformerFactory. Every informer the builder watches is requested from
// its factory here, before the manager starts the factory, so it starts
// with it: call Complete before Run, or, on a running manager, before
// adding the factory (as an Optional's Setup does: mgr may be the
// manager.Registrar it is given). An informer no factory of the manager
// starts fails the manager's Run within seconds, with an error naming the
// informer (manager.ErrInformerNotStarted). It returns the controller, for
// its Queue.
func (b *Builder[K]) Complete(r controller.Reconciler[K]) (*controller.Controller[K], error) {
	if b.mgr == nil {
		return nil, fmt.Errorf("builder: controller %q: no manager; use Build to run it without one", b.name)
	}
	c, err := b.Build(r)
	if err != nil {
		return nil, err
	}
	if err := b.mgr.Add(c); err != nil {
		return nil, fmt.Errorf("builder: controller %q: %w", b.name, err)
	}
	return c, nil
}

// check reports every mistake at once, and binds the owner mapping to the
// primary kind.
func (b *Builder[K]) check() error {
	errs := b.errs
	if b.built {
		errs = append(errs, errors.New("Build or Complete called twice: a Builder builds one controller"))
	}
	if b.primary == nil {
		errs = append(errs, errors.New("For was not called: the controller needs a primary kind"))
	}
	for _, s := range b.sources() {
		if s.informer == nil {
			errs = append(errs, fmt.Errorf("%s: informer must not be nil", s.what))
		}
	}
	errs = append(errs, b.checkSharding()...)
	if len(errs) > 0 {
		return fmt.Errorf("builder: controller %q: %w", b.name, errors.Join(errs...))
	}
	owner := handler.ForControllerOf(b.kind, b.scope, handler.IndexerLookup(b.primary.informer.GetStore()), b.key)
	for i := range b.owned {
		b.owned[i].handler = owner.WithPredicates(b.owned[i].predicates...)
	}
	return nil
}

func (b *Builder[K]) sources() []source[K] {
	var all []source[K]
	if b.primary != nil {
		all = append(all, *b.primary)
	}
	all = append(all, b.owned...)
	return append(all, b.watches...)
}
