package deployment

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/ctrlkit/ctrlkit/controller"
)

// Config holds what a Reconciler reads from and writes to.
//
// Client, Deployments, ReplicaSets, Pods and Recorder are required; the
// other fields have useful zero values.
type Config struct {
	// Client receives every write: ReplicaSet create, update, patch and
	// delete, Deployment update and status update, and the live Deployment
	// read that guards adoption.
	Client kubernetes.Interface

	// Deployments and ReplicaSets are read from the informer caches.
	Deployments appslisters.DeploymentLister
	ReplicaSets appslisters.ReplicaSetLister

	// ReplicaSetIndex, if set, is the ReplicaSet informer's indexer carrying
	// the ReplicaSetControllerIndex index (see AddReplicaSetControllerIndex).
	// A pass then reads only its Deployment's ReplicaSets and the namespace's
	// orphans; nil reads every ReplicaSet of the namespace, as upstream does.
	// Same decisions either way; with 1,000 Deployments in a namespace the
	// index halves the controller's CPU. NewController sets it.
	ReplicaSetIndex cache.Indexer

	// Pods is the pod informer's indexer. It must carry the PodControllerIndex
	// index (see AddPodControllerIndex): pods are looked up by their controller
	// reference, never by scanning a namespace.
	Pods cache.Indexer

	// Recorder receives the events upstream's controller emits, with the same
	// reasons and messages.
	Recorder record.EventRecorder

	// Clock tells the time for progress deadlines. Nil means the real clock.
	Clock clock.PassiveClock

	// TrackTerminatingReplicas fills status.terminatingReplicas, as
	// kube-controller-manager does with the DeploymentReplicaSetTerminatingReplicas
	// feature gate, which is on by default in v1.37. Nil means true.
	TrackTerminatingReplicas *bool

	// DeploymentInformer and ReplicaSetInformer are the informers behind the
	// Deployments and ReplicaSets listers: the very values passed to the
	// running controller's Watch (the controller knows an informer by that
	// value, and each Informer() call on a client-go typed informer returns
	// a new one). With one set, every write of that kind is recorded against
	// it (controller.RecordWrite, controller.RecordDelete), and the controller
	// holds the Deployment's key until the informer has delivered the write.
	// Nil records nothing. NewController sets both.
	DeploymentInformer cache.SharedInformer
	ReplicaSetInformer cache.SharedInformer
}

// Reconciler brings one Deployment in line with its spec, taking the same
// decisions as kube-controller-manager v1.37's Deployment controller, so that
// a cluster can switch between the two without re-creating a ReplicaSet or
// restarting a pod.
//
// A Reconciler keeps no state between calls and starts no goroutines: it is
// safe to call Reconcile for different keys at the same time, and it must not
// be called for the same key twice at once (a workqueue guarantees that).
type Reconciler struct {
	client           kubernetes.Interface
	deployments      appslisters.DeploymentLister
	replicaSets      appslisters.ReplicaSetLister
	replicaSetIndex  cache.Indexer // nil: scan the namespace
	pods             cache.Indexer
	recorder         record.EventRecorder
	clock            clock.PassiveClock
	trackTerminating bool
	// Informers to record writes against; nil records nothing.
	deploymentInformer cache.SharedInformer
	replicaSetInformer cache.SharedInformer
}

// Reconciler satisfies the controller package's contract for string keys.
var _ controller.Reconciler[string] = (*Reconciler)(nil)

// New checks cfg and returns a Reconciler built from it.
func New(cfg Config) (*Reconciler, error) {
	var missing []error
	if cfg.Client == nil {
		missing = append(missing, errors.New("missing Client"))
	}
	if cfg.Deployments == nil {
		missing = append(missing, errors.New("missing Deployments lister"))
	}
	if cfg.ReplicaSets == nil {
		missing = append(missing, errors.New("missing ReplicaSets lister"))
	}
	if cfg.ReplicaSetIndex != nil {
		if _, ok := cfg.ReplicaSetIndex.GetIndexers()[ReplicaSetControllerIndexName]; !ok {
			missing = append(missing, fmt.Errorf("the ReplicaSetIndex indexer has no %q index", ReplicaSetControllerIndexName))
		}
	}
	if cfg.Pods == nil {
		missing = append(missing, errors.New("missing Pods indexer"))
	} else if _, ok := cfg.Pods.GetIndexers()[PodControllerIndexName]; !ok {
		missing = append(missing, fmt.Errorf("the Pods indexer has no %q index", PodControllerIndexName))
	}
	if cfg.Recorder == nil {
		missing = append(missing, errors.New("missing Recorder"))
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("deployment: invalid Config: %w", errors.Join(missing...))
	}
	r := &Reconciler{
		client:             cfg.Client,
		deployments:        cfg.Deployments,
		replicaSets:        cfg.ReplicaSets,
		replicaSetIndex:    cfg.ReplicaSetIndex,
		pods:               cfg.Pods,
		recorder:           cfg.Recorder,
		clock:              cfg.Clock,
		trackTerminating:   cfg.TrackTerminatingReplicas == nil || *cfg.TrackTerminatingReplicas,
		deploymentInformer: cfg.DeploymentInformer,
		replicaSetInformer: cfg.ReplicaSetInformer,
	}
	if r.clock == nil {
		r.clock = clock.RealClock{}
	}
	return r, nil
}

// Reconcile syncs the Deployment whose key is "namespace/name".
//
// It returns a Result with RequeueAfter set when a rollout has made no
// progress and its progress deadline has yet to pass: the Deployment must be
// looked at again then, even if nothing else changes. An error whose cause is
// a terminating namespace, or a key that cannot be parsed, is wrapped with
// controller.TerminalError: retrying cannot help.
func (r *Reconciler) Reconcile(ctx context.Context, key string) (controller.Result, error) {
	logger := klog.FromContext(ctx)
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return controller.Result{}, controller.TerminalError(fmt.Errorf("deployment: bad key %q: %w", key, err))
	}
	start := r.clock.Now()
	logger.V(4).Info("Started syncing deployment", "deployment", klog.KRef(namespace, name))
	defer func() {
		logger.V(4).Info("Finished syncing deployment", "deployment", klog.KRef(namespace, name), "duration", r.clock.Since(start))
	}()

	cached, err := r.deployments.Deployments(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		logger.V(2).Info("Deployment has been deleted", "deployment", klog.KRef(namespace, name))
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}

	res, err := r.syncDeployment(ctx, cached.DeepCopy())
	if isNamespaceTerminating(err) {
		return controller.Result{}, controller.TerminalError(err)
	}
	return res, err
}

// syncDeployment takes upstream's decisions in upstream's order. d is a deep
// copy the caller owns; the cache is never written.
func (r *Reconciler) syncDeployment(ctx context.Context, d *appsv1.Deployment) (controller.Result, error) {
	// A literal {} selector selects every pod of the namespace. A nil selector
	// is not "empty" here: it selects nothing and takes the normal path.
	if reflect.DeepEqual(d.Spec.Selector, &metav1.LabelSelector{}) {
		r.recordWarning(d, eventSelectingAll, "This deployment is selecting all pods. A non-empty selector is required.")
		if d.Status.ObservedGeneration < d.Generation {
			d.Status.ObservedGeneration = d.Generation
			// Upstream ignores the outcome: the event already tells the user.
			if _, err := r.updateDeploymentStatus(ctx, d); err != nil {
				klog.FromContext(ctx).V(2).Info("Could not record observedGeneration", "deployment", klog.KObj(d), "err", err)
			}
		}
		return controller.Result{}, nil
	}

	rsList, err := r.claimReplicaSets(ctx, d)
	if err != nil {
		return controller.Result{}, err
	}

	if d.DeletionTimestamp != nil {
		return controller.Result{}, r.syncStatusOnly(ctx, d, rsList)
	}

	// Record pausing and resuming at once, so that time spent paused never
	// counts against the progress deadline.
	if err := r.checkPausedConditions(ctx, d); err != nil {
		return controller.Result{}, err
	}

	if d.Spec.Paused {
		return controller.Result{}, r.sync(ctx, d, rsList)
	}

	// Every path from here may create the new ReplicaSet. One the selector
	// would release at once is not created (a deliberate difference from
	// upstream, see the package doc).
	unadoptable, hash, err := newReplicaSetUnadoptable(d)
	if err != nil {
		return controller.Result{}, err
	}
	if unadoptable && findNewReplicaSet(d, rsList) == nil {
		return controller.Result{}, r.reportUnadoptable(ctx, d, hash)
	}

	// Rollback is not re-entrant: finish it (and clear the annotation) before
	// touching any ReplicaSet for the rollout.
	if _, ok := getRollbackTo(d); ok {
		return controller.Result{}, r.rollback(ctx, d, rsList)
	}

	scaling, err := r.isScalingEvent(ctx, d, rsList)
	if err != nil {
		return controller.Result{}, err
	}
	if scaling {
		return controller.Result{}, r.sync(ctx, d, rsList)
	}

	switch d.Spec.Strategy.Type {
	case appsv1.RecreateDeploymentStrategyType:
		podMap, err := r.podsByReplicaSet(d, rsList)
		if err != nil {
			return controller.Result{}, err
		}
		return r.rolloutRecreate(ctx, d, rsList, podMap)
	case appsv1.RollingUpdateDeploymentStrategyType:
		return r.rolloutRolling(ctx, d, rsList)
	}
	return controller.Result{}, fmt.Errorf("unexpected deployment strategy type: %s", d.Spec.Strategy.Type)
}

// isNamespaceTerminating reports whether err says the namespace is being
// deleted: creates there fail from now on, so retrying is pointless.
func isNamespaceTerminating(err error) bool {
	return err != nil && apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause)
}
