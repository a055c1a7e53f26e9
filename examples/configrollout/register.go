package configrollout

import (
	"fmt"
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/handler"
)

// Name is the controller's name in logs, metrics and events.
const Name = "configrollout"

// IndexName is the Deployment informer index that maps a ConfigMap or
// Secret (see IndexKey) to the opted-in Deployments whose pod template
// uses it.
const IndexName = "configrollout.ctrlkit.dev/config-refs"

// IndexKey is the index value for a ConfigMap or Secret.
func IndexKey(kind Kind, namespace, name string) string {
	return string(kind) + "/" + namespace + "/" + name
}

// indexByRefs is the cache.IndexFunc behind IndexName. Deployments that
// did not opt in are not indexed, so configuration changes never wake them.
func indexByRefs(obj any) ([]string, error) {
	d, ok := obj.(*appsv1.Deployment)
	if !ok || !Enabled(d) {
		return nil, nil
	}
	refs := RefsOf(&d.Spec.Template.Spec)
	keys := make([]string, len(refs))
	for i, r := range refs {
		keys[i] = IndexKey(r.Kind, d.Namespace, r.Name)
	}
	return keys, nil
}

// New wires a configrollout controller onto factory: a Deployment informer
// with the reference index, ConfigMap and Secret informers, and the
// Reconciler. Start the factory (or add it to a manager) and run the
// returned controller. opts are passed to controller.New as they are.
//
// Events that wake a Deployment:
//   - the Deployment is created, or its spec or annotations change, while
//     it is opted in (status updates, frequent during rollouts, do not);
//   - a ConfigMap or Secret it uses changes its data, appears or
//     disappears (from the informer's initial list only Deployments count:
//     they find their configuration themselves).
func New(client kubernetes.Interface, factory informers.SharedInformerFactory, recorder record.EventRecorder, opts controller.Options[string]) (*controller.Controller[string], error) {
	deployments := factory.Apps().V1().Deployments()
	configMaps := factory.Core().V1().ConfigMaps()
	secrets := factory.Core().V1().Secrets()

	if err := deployments.Informer().AddIndexers(cache.Indexers{IndexName: indexByRefs}); err != nil {
		return nil, fmt.Errorf("configrollout: adding the reference index: %w", err)
	}
	r, err := NewReconciler(Config{
		Client:      client,
		Deployments: deployments.Lister(),
		ConfigMaps:  configMaps.Lister(),
		Secrets:     secrets.Lister(),
		Recorder:    recorder,
	})
	if err != nil {
		return nil, err
	}
	c, err := controller.New[string](Name, r, opts)
	if err != nil {
		return nil, err
	}
	indexer := deployments.Informer().GetIndexer()
	watches := []struct {
		informer cache.SharedIndexInformer
		handler  handler.Handler[string]
	}{
		{deployments.Informer(), handler.ForObject(handler.ObjectKey).WithPredicates(DeploymentPredicate())},
		{configMaps.Informer(), handler.Map(UsersOf(indexer, KindConfigMap)).WithPredicates(ConfigPredicate())},
		{secrets.Informer(), handler.Map(UsersOf(indexer, KindSecret)).WithPredicates(ConfigPredicate())},
	}
	for _, w := range watches {
		if err := c.Watch(w.informer, w.handler); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// UsersOf returns a mapping from a ConfigMap or Secret of the given kind to
// the keys of the Deployments that use it, looked up in a Deployment
// indexer that has the IndexName index.
func UsersOf(deployments cache.Indexer, kind Kind) func(obj metav1.Object) []string {
	return func(obj metav1.Object) []string {
		users, err := deployments.ByIndex(IndexName, IndexKey(kind, obj.GetNamespace(), obj.GetName()))
		if err != nil {
			// Only a missing index fails; New always adds it.
			return nil
		}
		keys := make([]string, 0, len(users))
		for _, u := range users {
			if d, ok := u.(metav1.Object); ok {
				keys = append(keys, handler.ObjectKey(d))
			}
		}
		return keys
	}
}

// DeploymentPredicate lets through creates and updates of opted-in
// Deployments whose spec or annotations changed, and their resyncs. A
// Deployment that opts out is left as it is: its hash annotations stay.
func DeploymentPredicate() handler.Predicate {
	return handler.And(
		handler.OnlyEventTypes(handler.Create, handler.Update),
		handler.PredicateFunc(func(e handler.Event) bool { return Enabled(e.Object) }),
		handler.Or(
			handler.PredicateFunc(handler.Event.IsResync),
			handler.GenerationChanged(),
			handler.AnnotationsChanged(),
		),
	)
}

// ConfigPredicate lets through ConfigMap and Secret events that can change
// a hash: updates whose data changed, creates after the initial list, and
// deletes.
func ConfigPredicate() handler.Predicate {
	return handler.PredicateFunc(func(e handler.Event) bool {
		switch e.Type {
		case handler.Create:
			return !e.InInitialList
		case handler.Update:
			return dataChanged(e.OldObject, e.Object)
		default:
			return true
		}
	})
}

// dataChanged compares what Hash reads. Objects of any other type count as
// changed, so that a surprise never loses an event.
func dataChanged(oldObj, newObj metav1.Object) bool {
	switch n := newObj.(type) {
	case *corev1.ConfigMap:
		o, ok := oldObj.(*corev1.ConfigMap)
		return !ok || !maps.Equal(o.Data, n.Data) || !equality.Semantic.DeepEqual(o.BinaryData, n.BinaryData)
	case *corev1.Secret:
		o, ok := oldObj.(*corev1.Secret)
		return !ok || !equality.Semantic.DeepEqual(o.Data, n.Data)
	default:
		return true
	}
}
