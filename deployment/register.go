package deployment

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/handler"
)

// ControllerName is the name NewController gives its controller, as in
// kube-controller-manager's logs and --controllers flag.
const ControllerName = "deployment"

// MaxRetries is how many times kube-controller-manager retries a failing
// Deployment (5 ms doubling up to about 82 s) before dropping it until its
// next event.
const MaxRetries = 15

// Options tune NewController. The zero value reproduces
// kube-controller-manager's Deployment controller.
type Options struct {
	// Controller configures the controller (workers, logger, metrics,
	// clock...). Its RateLimiter defaults to the controller package's, which
	// is upstream's: per key 5 ms doubling to 1000 s, under an overall 10 qps
	// bucket. A zero MaxRetries means MaxRetries (15), upstream's, unless
	// Queue is set (the queue then decides).
	//
	// Its Clock is the only clock: it times the queue's delays and tells the
	// Reconciler the time for progress deadlines, so a requeue for a
	// deadline comes due when the Reconciler sees the deadline pass. Nil
	// means the real clock.
	Controller controller.Options[string]

	// TrackTerminatingReplicas fills status.terminatingReplicas. Nil means
	// true, as in Kubernetes v1.37.
	TrackTerminatingReplicas *bool

	// NamespaceLanes gives each namespace its own fairness lane in the
	// controller's queue (controller.Options.Lane), so that one team's mass
	// update does not make another team's new Deployment wait behind it:
	// lanes are served in turn, a busy one still gets its turn whenever
	// the others have keys, and all of them when they have none. Nil means
	// true; false serves keys first in, first out, as upstream's queue
	// does. A Lane or Queue in Controller takes precedence.
	NamespaceLanes *bool
}

// NewController wires a Deployment Reconciler to the Deployment, ReplicaSet
// and Pod informers of factory, the way kube-controller-manager does, and
// returns the controller to run together with the Reconciler it drives.
//
// It adds the PodControllerIndex index to the pod informer, so it must be
// called before factory.Start. Start the factory, then run the controller:
//
//	factory := informers.NewSharedInformerFactoryWithOptions(client, 0,
//		informers.WithTransform(handler.StripManagedFields))
//	ctrl, _, err := deployment.NewController(client, factory, recorder, deployment.Options{})
//	...
//	factory.Start(ctx.Done())
//	err = ctrl.Run(ctx)
//
// The Reconciler never reads managedFields: handler.StripManagedFields keeps
// them out of the caches, which it roughly halves. Of pods it reads only
// metadata and phase: on a factory of its own, TrimPod keeps the rest out.
//
// To run it sharded, as one replica of a ring (package controller/sharding),
// wire it as any sharded controller: shard the factory's Deployment,
// ReplicaSet and Pod informers with sharding.Shard before calling it, and
// pass sharding.ControllerOptions(ring, ...) as Options.Controller. A
// Deployment's ReplicaSets and Pods share its namespace, so its shard; the
// Reconciler does not know it is sharded.
//
// Events enqueue Deployments as upstream's do: every Deployment event; a
// ReplicaSet event wakes its owning Deployment (an orphan's create or label
// change wakes every Deployment selecting it, so one can adopt it); a pod
// deletion wakes its Deployment only under the Recreate strategy, which
// waits for old pods to be gone. All three are handler package Handlers, so
// keys from the informers' initial lists add at workqueue.PriorityLow and
// live events go first. Live events that cannot unblock a rollout (a
// Deployment's own status write coming back, a ReplicaSet that gained a
// pod not yet available) add at PriorityLow too, so that while workers are
// busy, a Deployment waits for the event that matters and one pass handles
// both; upstream's queue has no priorities, and every pass still decides
// as upstream's does from the state it reads.
func NewController(client kubernetes.Interface, factory informers.SharedInformerFactory, recorder record.EventRecorder, opts Options) (*controller.Controller[string], *Reconciler, error) {
	if client == nil || factory == nil || recorder == nil {
		return nil, nil, errors.New("deployment: NewController needs a client, an informer factory and an event recorder")
	}
	copts := opts.Controller
	dInformer := factory.Apps().V1().Deployments()
	rsInformer := factory.Apps().V1().ReplicaSets()
	podInformer := factory.Core().V1().Pods()
	// Each Informer() call returns a new wrapper around the factory's
	// informer, and the controller knows an informer by the value passed to
	// Watch: writes are recorded against those very values.
	dShared, rsShared := dInformer.Informer(), rsInformer.Informer()
	if err := AddPodControllerIndex(podInformer.Informer()); err != nil {
		return nil, nil, fmt.Errorf("deployment: %w", err)
	}
	if err := AddReplicaSetControllerIndex(rsShared); err != nil {
		return nil, nil, fmt.Errorf("deployment: %w", err)
	}

	r, err := New(Config{
		Client:                   client,
		Deployments:              dInformer.Lister(),
		ReplicaSets:              rsInformer.Lister(),
		ReplicaSetIndex:          rsShared.GetIndexer(),
		Pods:                     podInformer.Informer().GetIndexer(),
		Recorder:                 recorder,
		Clock:                    opts.Controller.Clock,
		TrackTerminatingReplicas: opts.TrackTerminatingReplicas,
		DeploymentInformer:       dShared,
		ReplicaSetInformer:       rsShared,
	})
	if err != nil {
		return nil, nil, err
	}

	if copts.MaxRetries == 0 && copts.Queue == nil {
		copts.MaxRetries = MaxRetries
	}
	if copts.Lane == nil && copts.Queue == nil && (opts.NamespaceLanes == nil || *opts.NamespaceLanes) {
		copts.Lane = namespaceOf
	}
	ctrl, err := controller.New(ControllerName, controller.Reconciler[string](r), copts)
	if err != nil {
		return nil, nil, err
	}

	logger := copts.Logger
	if logger.GetSink() == nil {
		logger = klog.Background()
	}
	rules := &eventRules{
		deployments: dInformer.Lister(),
		replicaSets: rsInformer.Lister(),
		log:         logger.WithValues("controller", ControllerName),
	}
	for _, w := range []struct {
		informer cache.SharedIndexInformer
		handler  handler.Handler[string]
	}{
		{dShared, handler.ForObject(handler.ObjectKey).WithPriority(deploymentPriority)},
		{rsShared, rules.replicaSetHandler()},
		{podInformer.Informer(), rules.podHandler()},
	} {
		if err := ctrl.Watch(w.informer, w.handler); err != nil {
			return nil, nil, err
		}
	}
	return ctrl, r, nil
}

// eventRules maps ReplicaSet and pod events to the keys of the Deployments
// kube-controller-manager would wake. Its rules look at both sides of an
// update and resolve owners by kind alone, so they are handler.MapEvent
// functions rather than handler.ForControllerOf, which also checks the
// owner's API group.
type eventRules struct {
	deployments appslisters.DeploymentLister
	replicaSets appslisters.ReplicaSetLister
	log         logr.Logger
}

// replicaSetHandler wakes a ReplicaSet's owner, or the Deployments that may
// adopt an orphan. Resyncs change nothing a Deployment depends on, so they
// are dropped before the rules run.
func (e *eventRules) replicaSetHandler() handler.Handler[string] {
	return handler.MapEvent(e.replicaSetKeys).WithPredicates(handler.ResourceVersionChanged()).WithPriority(replicaSetPriority)
}

// podHandler wakes a Recreate Deployment when one of its pods is deleted:
// it waits for its old pods to be gone before it creates the new
// ReplicaSet. Other pod events concern the ReplicaSet controller only.
func (e *eventRules) podHandler() handler.Handler[string] {
	return handler.MapEvent(e.deletedPodKeys).WithPredicates(handler.OnlyEventTypes(handler.Delete))
}

func (e *eventRules) replicaSetKeys(ev handler.Event) []string {
	rs, ok := ev.Object.(*appsv1.ReplicaSet)
	if !ok {
		utilruntime.HandleError(fmt.Errorf("deployment: ReplicaSet %s event for a %T", ev.Type, ev.Object))
		return nil
	}
	switch ev.Type {
	case handler.Create:
		return e.addedReplicaSetKeys(rs)
	case handler.Update:
		old, ok := ev.OldObject.(*appsv1.ReplicaSet)
		if !ok {
			utilruntime.HandleError(fmt.Errorf("deployment: ReplicaSet update event from a %T", ev.OldObject))
			return nil
		}
		return e.updatedReplicaSetKeys(old, rs)
	case handler.Delete:
		return e.deletedReplicaSetKeys(rs)
	}
	return nil
}

func (e *eventRules) addedReplicaSetKeys(rs *appsv1.ReplicaSet) []string {
	if rs.DeletionTimestamp != nil {
		// Already being deleted when first seen (e.g. after a restart).
		return e.deletedReplicaSetKeys(rs)
	}
	if ref := metav1.GetControllerOfNoCopy(rs); ref != nil {
		return e.ownerKey(rs.Namespace, ref)
	}
	// An orphan: wake whoever might adopt it.
	return e.keysSelecting(rs)
}

// updatedReplicaSetKeys expects a real change: resyncs are filtered out
// before it.
func (e *eventRules) updatedReplicaSetKeys(old, cur *appsv1.ReplicaSet) []string {
	curRef := metav1.GetControllerOfNoCopy(cur)
	oldRef := metav1.GetControllerOfNoCopy(old)
	refChanged := !reflect.DeepEqual(curRef, oldRef)
	var keys []string
	if refChanged && oldRef != nil {
		// The former owner has lost it.
		keys = e.ownerKey(old.Namespace, oldRef)
	}
	if curRef != nil {
		return append(keys, e.ownerKey(cur.Namespace, curRef)...)
	}
	// An orphan only interests its would-be adopters when it may have
	// become adoptable: released just now, or relabelled.
	if refChanged || !reflect.DeepEqual(cur.Labels, old.Labels) {
		keys = append(keys, e.keysSelecting(cur)...)
	}
	return keys
}

func (e *eventRules) deletedReplicaSetKeys(rs *appsv1.ReplicaSet) []string {
	// Nobody cares about an orphan's deletion.
	if ref := metav1.GetControllerOfNoCopy(rs); ref != nil {
		return e.ownerKey(rs.Namespace, ref)
	}
	return nil
}

// deletedPodKeys returns the key of the Deployment owning the deleted pod's
// ReplicaSet, if that Deployment uses the Recreate strategy.
func (e *eventRules) deletedPodKeys(ev handler.Event) []string {
	pod, ok := ev.Object.(*corev1.Pod)
	if !ok {
		utilruntime.HandleError(fmt.Errorf("deployment: pod %s event for a %T", ev.Type, ev.Object))
		return nil
	}
	ref := metav1.GetControllerOfNoCopy(pod)
	if ref == nil || ref.Kind != "ReplicaSet" {
		return nil
	}
	rs, err := e.replicaSets.ReplicaSets(pod.Namespace).Get(ref.Name)
	if err != nil || rs.UID != ref.UID {
		return nil
	}
	rsRef := metav1.GetControllerOfNoCopy(rs)
	if rsRef == nil {
		return nil
	}
	if d := e.resolveControllerRef(rs.Namespace, rsRef); d != nil && d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		return []string{handler.ObjectKey(d)}
	}
	return nil
}

// ownerKey returns the key of the cached Deployment ref points to, if any
// (see resolveControllerRef).
func (e *eventRules) ownerKey(namespace string, ref *metav1.OwnerReference) []string {
	if d := e.resolveControllerRef(namespace, ref); d != nil {
		return []string{handler.ObjectKey(d)}
	}
	return nil
}

// resolveControllerRef returns the cached Deployment ref points to, or nil
// when ref is not a Deployment's or that Deployment is gone (another with
// the same name but a different UID does not count). Like upstream, only the
// kind is compared: references written under older API groups still resolve.
func (e *eventRules) resolveControllerRef(namespace string, ref *metav1.OwnerReference) *appsv1.Deployment {
	if ref.Kind != "Deployment" {
		return nil
	}
	d, err := e.deployments.Deployments(namespace).Get(ref.Name)
	if err != nil || d.UID != ref.UID {
		return nil
	}
	return d
}

// keysSelecting returns the keys of the Deployments in rs's namespace whose
// selector matches rs's labels. A nil, empty or invalid selector matches
// nothing, and a ReplicaSet without labels is matched by none.
func (e *eventRules) keysSelecting(rs *appsv1.ReplicaSet) []string {
	if len(rs.Labels) == 0 {
		return nil
	}
	all, err := e.deployments.Deployments(rs.Namespace).List(labels.Everything())
	if err != nil {
		return nil
	}
	var keys []string
	for _, d := range all {
		selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil || selector.Empty() || !selector.Matches(labels.Set(rs.Labels)) {
			continue
		}
		keys = append(keys, handler.ObjectKey(d))
	}
	if len(keys) > 1 {
		// Controller references keep this safe, but it is a user error.
		e.log.V(4).Info("user error! more than one deployment is selecting replica set",
			"replicaSet", klog.KObj(rs), "labels", rs.Labels, "deployment", keys[0])
	}
	return keys
}

// namespaceOf is the namespace of a "namespace/name" key: its fairness lane.
func namespaceOf(key string) string {
	ns, _, _ := strings.Cut(key, "/")
	return ns
}
