package deployment

import (
	"errors"
	"fmt"
	"reflect"

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
	"k8s.io/utils/clock"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/handler"
	"github.com/ctrlkit/ctrlkit/workqueue"
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
	// bucket. A zero MaxRetries means MaxRetries (15), upstream's.
	Controller controller.Options[string]

	// Clock tells the Reconciler the time for progress deadlines. Nil means
	// the real clock.
	Clock clock.PassiveClock

	// TrackTerminatingReplicas fills status.terminatingReplicas. Nil means
	// true, as in Kubernetes v1.37.
	TrackTerminatingReplicas *bool
}

// NewController wires a Deployment Reconciler to the Deployment, ReplicaSet
// and Pod informers of factory, the way kube-controller-manager does, and
// returns the controller to run together with the Reconciler it drives.
//
// It adds the PodControllerIndex index to the pod informer, so it must be
// called before factory.Start. Start the factory, then run the controller:
//
//	ctrl, _, err := deployment.NewController(client, factory, recorder, deployment.Options{})
//	...
//	factory.Start(ctx.Done())
//	err = ctrl.Run(ctx)
//
// Events enqueue Deployments as upstream's do: every Deployment event; a
// ReplicaSet event wakes its owning Deployment (an orphan's create or label
// change wakes every Deployment selecting it, so one can adopt it); a pod
// deletion wakes its Deployment only under the Recreate strategy, which
// waits for old pods to be gone.
func NewController(client kubernetes.Interface, factory informers.SharedInformerFactory, recorder record.EventRecorder, opts Options) (*controller.Controller[string], *Reconciler, error) {
	if client == nil || factory == nil || recorder == nil {
		return nil, nil, errors.New("deployment: NewController needs a client, an informer factory and an event recorder")
	}
	dInformer := factory.Apps().V1().Deployments()
	rsInformer := factory.Apps().V1().ReplicaSets()
	podInformer := factory.Core().V1().Pods()
	if err := AddPodControllerIndex(podInformer.Informer()); err != nil {
		return nil, nil, fmt.Errorf("deployment: %w", err)
	}

	r, err := New(Config{
		Client:                   client,
		Deployments:              dInformer.Lister(),
		ReplicaSets:              rsInformer.Lister(),
		Pods:                     podInformer.Informer().GetIndexer(),
		Recorder:                 recorder,
		Clock:                    opts.Clock,
		TrackTerminatingReplicas: opts.TrackTerminatingReplicas,
	})
	if err != nil {
		return nil, nil, err
	}

	copts := opts.Controller
	if copts.MaxRetries == 0 {
		copts.MaxRetries = MaxRetries
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
		queue:       ctrl.Queue(),
		log:         logger.WithValues("controller", ControllerName),
	}
	if err := ctrl.Watch(dInformer.Informer(), handler.ForObject(handler.ObjectKey)); err != nil {
		return nil, nil, err
	}
	// The ReplicaSet and pod rules look at both sides of an update and at
	// the ReplicaSet's owner, which the handler package's mappings do not;
	// they are registered directly. Watching with the zero Handler (no keys)
	// still makes Run wait for these informers to sync.
	for _, w := range []struct {
		informer cache.SharedIndexInformer
		handler  cache.ResourceEventHandler
	}{
		{rsInformer.Informer(), rules.replicaSetHandler()},
		{podInformer.Informer(), rules.podHandler()},
	} {
		if _, err := w.informer.AddEventHandler(w.handler); err != nil {
			return nil, nil, fmt.Errorf("deployment: %w", err)
		}
		if err := ctrl.Watch(w.informer, handler.Handler[string]{}); err != nil {
			return nil, nil, err
		}
	}
	return ctrl, r, nil
}

// eventRules turns ReplicaSet and pod events into Deployment keys with
// kube-controller-manager's rules.
type eventRules struct {
	deployments appslisters.DeploymentLister
	replicaSets appslisters.ReplicaSetLister
	queue       handler.Queue[string]
	log         logr.Logger
}

func (e *eventRules) replicaSetHandler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerDetailedFuncs{
		AddFunc:    e.addReplicaSet,
		UpdateFunc: e.updateReplicaSet,
		DeleteFunc: e.deleteReplicaSet,
	}
}

func (e *eventRules) podHandler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerDetailedFuncs{DeleteFunc: e.deletePod}
}

func (e *eventRules) enqueue(d *appsv1.Deployment, initial bool) {
	prio := workqueue.PriorityNormal
	if initial {
		// As the handler package does: the initial list must not hold up
		// live events.
		prio = workqueue.PriorityLow
	}
	e.queue.AddWithOpts(workqueue.AddOpts{Priority: prio}, d.Namespace+"/"+d.Name)
}

func (e *eventRules) addReplicaSet(obj any, initial bool) {
	rs, ok := obj.(*appsv1.ReplicaSet)
	if !ok {
		return
	}
	if rs.DeletionTimestamp != nil {
		// Already being deleted when first seen (e.g. after a restart).
		e.deleteReplicaSet(rs)
		return
	}
	if ref := metav1.GetControllerOfNoCopy(rs); ref != nil {
		if d := e.resolveControllerRef(rs.Namespace, ref); d != nil {
			e.enqueue(d, initial)
		}
		return
	}
	// An orphan: wake whoever might adopt it.
	for _, d := range e.deploymentsSelecting(rs) {
		e.enqueue(d, initial)
	}
}

func (e *eventRules) updateReplicaSet(oldObj, curObj any) {
	old, ok1 := oldObj.(*appsv1.ReplicaSet)
	cur, ok2 := curObj.(*appsv1.ReplicaSet)
	if !ok1 || !ok2 || cur.ResourceVersion == old.ResourceVersion {
		// A periodic resync: nothing changed.
		return
	}
	curRef := metav1.GetControllerOfNoCopy(cur)
	oldRef := metav1.GetControllerOfNoCopy(old)
	refChanged := !reflect.DeepEqual(curRef, oldRef)
	if refChanged && oldRef != nil {
		// The former owner has lost it.
		if d := e.resolveControllerRef(old.Namespace, oldRef); d != nil {
			e.enqueue(d, false)
		}
	}
	if curRef != nil {
		if d := e.resolveControllerRef(cur.Namespace, curRef); d != nil {
			e.enqueue(d, false)
		}
		return
	}
	if refChanged || !reflect.DeepEqual(cur.Labels, old.Labels) {
		for _, d := range e.deploymentsSelecting(cur) {
			e.enqueue(d, false)
		}
	}
}

func (e *eventRules) deleteReplicaSet(obj any) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	rs, ok := obj.(*appsv1.ReplicaSet)
	if !ok {
		utilruntime.HandleError(fmt.Errorf("deployment: ReplicaSet delete event for a %T", obj))
		return
	}
	// Nobody cares about an orphan's deletion.
	if ref := metav1.GetControllerOfNoCopy(rs); ref != nil {
		if d := e.resolveControllerRef(rs.Namespace, ref); d != nil {
			e.enqueue(d, false)
		}
	}
}

// deletePod wakes a Recreate Deployment, which waits for its old pods to be
// gone before it creates the new ReplicaSet.
func (e *eventRules) deletePod(obj any) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		utilruntime.HandleError(fmt.Errorf("deployment: pod delete event for a %T", obj))
		return
	}
	ref := metav1.GetControllerOfNoCopy(pod)
	if ref == nil || ref.Kind != "ReplicaSet" {
		return
	}
	rs, err := e.replicaSets.ReplicaSets(pod.Namespace).Get(ref.Name)
	if err != nil || rs.UID != ref.UID {
		return
	}
	rsRef := metav1.GetControllerOfNoCopy(rs)
	if rsRef == nil {
		return
	}
	if d := e.resolveControllerRef(rs.Namespace, rsRef); d != nil && d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		e.enqueue(d, false)
	}
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

// deploymentsSelecting returns the Deployments in rs's namespace whose
// selector matches rs's labels. A nil, empty or invalid selector matches
// nothing, and a ReplicaSet without labels is matched by none.
func (e *eventRules) deploymentsSelecting(rs *appsv1.ReplicaSet) []*appsv1.Deployment {
	if len(rs.Labels) == 0 {
		return nil
	}
	all, err := e.deployments.Deployments(rs.Namespace).List(labels.Everything())
	if err != nil {
		return nil
	}
	var matching []*appsv1.Deployment
	for _, d := range all {
		selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil || selector.Empty() || !selector.Matches(labels.Set(rs.Labels)) {
			continue
		}
		matching = append(matching, d)
	}
	if len(matching) > 1 {
		// Controller references keep this safe, but it is a user error.
		e.log.V(4).Info("user error! more than one deployment is selecting replica set",
			"replicaSet", klog.KObj(rs), "labels", rs.Labels, "deployment", klog.KObj(matching[0]))
	}
	return matching
}
