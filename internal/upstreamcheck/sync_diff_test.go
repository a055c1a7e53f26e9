package upstreamcheck

// This file compares deployment.Reconciler with kube-controller-manager's
// Deployment controller decision for decision: both start a pass from the
// same world (a fake API server and caches filled by hand) and must send the
// same requests, with the same objects, in the same order, and record the
// same events. Upstream's per-key sync function is an unexported field of its
// controller; the test reaches it (and swaps in a fake event recorder) with
// reflect and unsafe, which is test-only and keeps the comparison to exactly
// one pass, without queues or goroutines.

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	appslisters "k8s.io/client-go/listers/apps/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2/ktesting"
	upstream "k8s.io/kubernetes/pkg/controller/deployment"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	ours "github.com/ctrlkit/ctrlkit/deployment"
)

// outcome is what one sync pass did, in a form both controllers can be
// compared on: the writes (and live reads) in order, the events, whether it
// failed, and what it asked of the queue.
type outcome struct {
	Actions []string
	Events  []string
	Failed  bool
	Requeue requeue
}

// requeue is what a pass asks of its queue besides retrying an error: a
// rate-limited retry soon (upstream's AddRateLimited when under a second is
// left before the progress deadline), a check after a delay, or nothing.
//
// Ours returns the delay instead; with under a second left it waits until
// just past the deadline rather than retrying at once (see deployment's
// doc.go), which counts as Soon here.
type requeue struct {
	Soon  bool
	After time.Duration
}

// sameOutcome compares outcomes, taking two delays within a second of each
// other as the same: each controller reads its own clock.
var sameOutcome = cmp.Comparer(func(a, b requeue) bool {
	return a.Soon == b.Soon && (a.After-b.After).Abs() < time.Second
})

// oursSoonBelow separates ours' two kinds of delay: "just past the
// deadline" is under a second (plus a few milliseconds of slack), a
// progress check is at least a second past the deadline, which is at least
// a second away.
const oursSoonBelow = 1500 * time.Millisecond

// syncWorld is the state one pass starts from: what the caches hold and
// what the API server holds (the same unless served is set), and requests
// the API server refuses.
type syncWorld struct {
	cached   []runtime.Object
	served   []runtime.Object // nil: same as cached
	refusals []refusal
}

// refusal makes the fake API server fail every request with verb on
// resource (which may name a subresource: "deployments/status").
type refusal struct {
	verb, resource string
	err            error
}

func (w syncWorld) servedObjects() []runtime.Object {
	if w.served != nil {
		return w.served
	}
	return w.cached
}

// testContext is a context whose logger writes to t.
func testContext(t *testing.T) context.Context {
	_, ctx := ktesting.NewTestContext(t)
	return ctx
}

// queueRecorder stands in for upstream's work queue and records the
// requeues a sync asks for.
type queueRecorder struct {
	workqueue.TypedRateLimitingInterface[string]
	got *requeue
}

func (q queueRecorder) AddRateLimited(string)                  { q.got.Soon = true }
func (q queueRecorder) AddAfter(_ string, after time.Duration) { q.got.After = after }

// newFakeClient is a fake API server holding copies of w's served objects
// and refusing what w says it refuses.
//
// It is the fake without field management: NewClientset's tracker builds a
// REST mapper of the whole scheme on every update, which makes a pass cost
// tens of milliseconds, and neither controller uses server-side apply.
//
// Like the API server, it refuses a ReplicaSet of negative size, which
// int32 overflows in either controller's arithmetic can produce.
func newFakeClient(w syncWorld) *fake.Clientset {
	client := fake.NewSimpleClientset(copies(w.servedObjects())...)
	for _, r := range w.refusals {
		resource, subresource, _ := strings.Cut(r.resource, "/")
		client.PrependReactor(r.verb, resource, func(a clienttesting.Action) (bool, runtime.Object, error) {
			return a.GetSubresource() == subresource, nil, r.err
		})
	}
	client.PrependReactor("*", "replicasets", func(a clienttesting.Action) (bool, runtime.Object, error) {
		var rs *appsv1.ReplicaSet
		if a, ok := a.(clienttesting.CreateAction); ok { // updates too: UpdateAction has the same methods
			rs, _ = a.GetObject().(*appsv1.ReplicaSet)
		}
		if rs == nil || rs.Spec.Replicas == nil || *rs.Spec.Replicas >= 0 {
			return false, nil, nil
		}
		return true, nil, apierrors.NewInvalid(appsv1.SchemeGroupVersion.WithKind("ReplicaSet").GroupKind(), rs.Name, field.ErrorList{
			field.Invalid(field.NewPath("spec", "replicas"), *rs.Spec.Replicas, "must be greater than or equal to 0")})
	})
	return client
}

// runUpstream runs kube-controller-manager's syncDeployment once for key.
func runUpstream(ctx context.Context, t *testing.T, w syncWorld, key string, start time.Time) (outcome, *fake.Clientset) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	client := newFakeClient(w)
	factory := informers.NewSharedInformerFactory(client, 0)
	dInf, rsInf, podInf := factory.Apps().V1().Deployments(), factory.Apps().V1().ReplicaSets(), factory.Core().V1().Pods()
	dc, err := upstream.NewDeploymentController(ctx, dInf, rsInf, podInf, client)
	if err != nil {
		t.Fatal(err)
	}
	defer getUnexported(dc, "eventBroadcaster").(record.EventBroadcaster).Shutdown()
	recorder := record.NewFakeRecorder(100)
	setUnexported(dc, "eventRecorder", record.EventRecorder(recorder))
	var rq requeue
	queue := getUnexported(dc, "queue").(workqueue.TypedRateLimitingInterface[string])
	queue.ShutDown()
	setUnexported(dc, "queue", workqueue.TypedRateLimitingInterface[string](queueRecorder{queue, &rq}))
	fill(t, dInf.Informer().GetIndexer(), rsInf.Informer().GetIndexer(), podInf.Informer().GetIndexer(), w.cached)
	client.ClearActions()
	sync := getUnexported(dc, "syncHandler").(func(context.Context, string) error)
	err = sync(ctx, key)
	return outcome{Actions: normalizeActions(t, client.Actions(), start), Events: drain(recorder), Failed: err != nil, Requeue: rq}, client
}

// runOurs runs our Reconcile once for key.
func runOurs(ctx context.Context, t *testing.T, w syncWorld, key string, start time.Time) (outcome, *fake.Clientset) {
	client := newFakeClient(w)
	dIdx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	rsIdx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	podIdx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{ours.PodControllerIndexName: ours.PodControllerIndex})
	fill(t, dIdx, rsIdx, podIdx, w.cached)
	recorder := record.NewFakeRecorder(100)
	r, err := ours.New(ours.Config{
		Client:      client,
		Deployments: appslisters.NewDeploymentLister(dIdx),
		ReplicaSets: appslisters.NewReplicaSetLister(rsIdx),
		Pods:        podIdx,
		Recorder:    recorder,
		Clock:       clocktesting.NewFakeClock(time.Now()),
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Reconcile(ctx, key)
	var rq requeue
	switch {
	case res.RequeueAfter <= 0:
	case res.RequeueAfter < oursSoonBelow:
		rq.Soon = true
	default:
		rq.After = res.RequeueAfter
	}
	return outcome{Actions: normalizeActions(t, client.Actions(), start), Events: drain(recorder), Failed: err != nil, Requeue: rq}, client
}

func fill(t *testing.T, d, rs, pods cache.Indexer, objs []runtime.Object) {
	for _, obj := range copies(objs) {
		var err error
		switch obj.(type) {
		case *appsv1.Deployment:
			err = d.Add(obj)
		case *appsv1.ReplicaSet:
			err = rs.Add(obj)
		case *corev1.Pod:
			err = pods.Add(obj)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func copies(objs []runtime.Object) []runtime.Object {
	out := make([]runtime.Object, len(objs))
	for i, o := range objs {
		out[i] = o.DeepCopyObject()
	}
	return out
}

func drain(r *record.FakeRecorder) []string {
	var out []string
	for {
		select {
		case e := <-r.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// normalizeActions prints each action with its object; timestamps the pass
// itself wrote (at or after start) are replaced by "now", since the two
// controllers read different clocks.
func normalizeActions(t *testing.T, actions []clienttesting.Action, start time.Time) []string {
	var out []string
	for _, a := range actions {
		if a.GetVerb() == "list" || a.GetVerb() == "watch" {
			continue
		}
		s := fmt.Sprintf("%s %s/%s %s", a.GetVerb(), a.GetResource().Resource, a.GetSubresource(), a.GetNamespace())
		switch a := a.(type) {
		case clienttesting.CreateAction: // updates too: UpdateAction has the same methods
			s += " " + objectJSON(t, a.GetObject(), start)
		case clienttesting.PatchAction:
			s += " " + a.GetName() + " " + string(a.GetPatchType()) + " " + string(a.GetPatch())
		case clienttesting.DeleteAction:
			s += " " + a.GetName()
		case clienttesting.GetAction:
			s += " " + a.GetName()
		}
		out = append(out, s)
	}
	// The claim phase (live read, adopt and release patches) comes first and
	// follows the cache's listing order, which is a map's: compare it as a set.
	claim := 0
	for claim < len(out) && (strings.HasPrefix(out[claim], "get ") || strings.HasPrefix(out[claim], "patch ")) {
		claim++
	}
	slices.Sort(out[:claim])
	return out
}

func objectJSON(t *testing.T, obj runtime.Object, start time.Time) string {
	obj = obj.DeepCopyObject()
	if d, ok := obj.(*appsv1.Deployment); ok {
		for i := range d.Status.Conditions {
			c := &d.Status.Conditions[i]
			for _, ts := range []*metav1.Time{&c.LastUpdateTime, &c.LastTransitionTime} {
				if !ts.Time.Before(start.Truncate(time.Second)) {
					*ts = metav1.Time{}
					c.Message += " [time: now]"
				}
			}
		}
	}
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// getUnexported and setUnexported reach into upstream's controller: its sync
// function and event recorder are unexported fields.
func getUnexported(obj any, field string) any {
	f := reflect.ValueOf(obj).Elem().FieldByName(field)
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface()
}

func setUnexported(obj any, field string, value any) {
	f := reflect.ValueOf(obj).Elem().FieldByName(field)
	reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Set(reflect.ValueOf(value))
}

// Builders for the scenarios, independent of both implementations' tests.

const ns = "default"

func dep(name string, replicas int32, image string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + name), Generation: 1,
			CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: image}}},
			},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromString("25%")), MaxUnavailable: ptr.To(intstr.FromString("25%"))}},
			RevisionHistoryLimit:    ptr.To[int32](10),
			ProgressDeadlineSeconds: ptr.To[int32](600),
		},
	}
}

// rsFor returns the ReplicaSet upstream would have created for d's template
// with the given image, at the given revision, size and age (minutes ago).
func rsFor(d *appsv1.Deployment, image string, revision string, size, available int32, age int) *appsv1.ReplicaSet {
	tmpl := *d.Spec.Template.DeepCopy()
	tmpl.Spec.Containers[0].Image = image
	hash := ours.PodTemplateHash(&tmpl, nil)
	tmpl.Labels = map[string]string{"app": d.Name, appsv1.DefaultDeploymentUniqueLabelKey: hash}
	sel := d.Spec.Selector.DeepCopy()
	sel.MatchLabels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
	name := d.Name + "-" + hash
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + name), Generation: 1,
			Labels:            tmpl.Labels,
			Annotations:       map[string]string{ours.RevisionAnnotation: revision, ours.DesiredReplicasAnnotation: fmt.Sprint(*d.Spec.Replicas), ours.MaxReplicasAnnotation: fmt.Sprint(*d.Spec.Replicas + 1)},
			CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC).Add(-time.Duration(age) * time.Minute)),
			OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))}},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(size), Selector: sel, Template: tmpl},
		Status: appsv1.ReplicaSetStatus{Replicas: size, FullyLabeledReplicas: size, ReadyReplicas: available, AvailableReplicas: available,
			ObservedGeneration: 1, TerminatingReplicas: ptr.To[int32](0)},
	}
}

func pod(rs *appsv1.ReplicaSet, name string, phase corev1.PodPhase) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + name), Labels: rs.Spec.Template.Labels,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(rs, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))}},
		Status: corev1.PodStatus{Phase: phase},
	}
}

func objs(o ...runtime.Object) []runtime.Object { return o }

func TestSyncMatchesUpstream(t *testing.T) {
	type scenario struct {
		name  string
		world func() syncWorld
		// known, when set, says why ours may differ here; the difference
		// is then reported as a skip, not a failure.
		known string
	}
	scenarios := []scenario{
		{"new rolling deployment", func() syncWorld {
			return syncWorld{cached: objs(dep("foo", 3, "v1"))}
		}, ""},
		{"new recreate deployment", func() syncWorld {
			d := dep("foo", 3, "v1")
			d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
			return syncWorld{cached: objs(d)}
		}, ""},
		{"rollout starts", func() syncWorld {
			d := dep("foo", 4, "v2")
			d.Annotations = map[string]string{ours.RevisionAnnotation: "1"}
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 4, 4, 60))}
		}, ""},
		{"rollout midway", func() syncWorld {
			d := dep("foo", 4, "v2")
			d.Annotations = map[string]string{ours.RevisionAnnotation: "2"}
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 3, 3, 60), rsFor(d, "v2", "2", 2, 2, 1))}
		}, ""},
		{"rollout with unhealthy old pods", func() syncWorld {
			d := dep("foo", 10, "v2")
			d.Annotations = map[string]string{ours.RevisionAnnotation: "3"}
			return syncWorld{cached: objs(d, rsFor(d, "v0", "1", 2, 0, 90), rsFor(d, "v1", "2", 8, 5, 60), rsFor(d, "v2", "3", 2, 0, 1))}
		}, ""},
		{"rollout complete with history to clean", func() syncWorld {
			d := dep("foo", 2, "v3")
			d.Spec.RevisionHistoryLimit = ptr.To[int32](1)
			d.Annotations = map[string]string{ours.RevisionAnnotation: "3"}
			d.Status = appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 2, UpdatedReplicas: 2, AvailableReplicas: 2, ReadyReplicas: 2}
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 0, 0, 90), rsFor(d, "v2", "2", 0, 0, 60), rsFor(d, "v3", "3", 2, 2, 1))}
		}, ""},
		{"scaling event, proportional", func() syncWorld {
			d := dep("foo", 12, "v3")
			d.Annotations = map[string]string{ours.RevisionAnnotation: "3"}
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 2, 2, 90), rsFor(d, "v2", "2", 3, 3, 60), rsFor(d, "v3", "3", 2, 0, 1))}
		}, ""},
		{"paused and resized", func() syncWorld {
			d := dep("foo", 7, "v3")
			d.Spec.Paused = true
			d.Spec.RevisionHistoryLimit = ptr.To[int32](0)
			d.Annotations = map[string]string{ours.RevisionAnnotation: "2"}
			return syncWorld{cached: objs(d, rsFor(d, "v0", "1", 0, 0, 120), rsFor(d, "v1", "2", 3, 3, 90), rsFor(d, "v2", "3", 2, 2, 60))}
		}, ""},
		{"resumed", func() syncWorld {
			d := dep("foo", 3, "v1")
			d.Annotations = map[string]string{ours.RevisionAnnotation: "1"}
			d.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionUnknown, Reason: "DeploymentPaused", Message: "Deployment is paused"}}
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 3, 3, 60))}
		}, ""},
		{"rollback to previous", func() syncWorld {
			d := dep("foo", 2, "v2")
			d.Annotations = map[string]string{ours.RevisionAnnotation: "2", appsv1.DeprecatedRollbackTo: "0", "note": "v2"}
			old := rsFor(d, "v1", "1", 0, 0, 60)
			old.Annotations["note"] = "v1"
			return syncWorld{cached: objs(d, old, rsFor(d, "v2", "2", 2, 2, 1))}
		}, ""},
		{"rollback to a missing revision", func() syncWorld {
			d := dep("foo", 2, "v2")
			d.Annotations = map[string]string{ours.RevisionAnnotation: "2", appsv1.DeprecatedRollbackTo: "9"}
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 0, 0, 60), rsFor(d, "v2", "2", 2, 2, 1))}
		}, ""},
		{"rollback to the current revision", func() syncWorld {
			d := dep("foo", 2, "v2")
			d.Annotations = map[string]string{ours.RevisionAnnotation: "2", appsv1.DeprecatedRollbackTo: "2"}
			return syncWorld{cached: objs(d, rsFor(d, "v2", "2", 2, 2, 1))}
		}, ""},
		{"hash collision", func() syncWorld {
			d := dep("foo", 2, "v1")
			squatter := rsFor(dep("bar", 1, "x"), "x", "1", 1, 1, 5)
			squatter.Name = "foo-" + ours.PodTemplateHash(&d.Spec.Template, nil)
			return syncWorld{cached: objs(d, squatter)}
		}, ""},
		{"adopt and release", func() syncWorld {
			d := dep("foo", 2, "v1")
			orphan := rsFor(d, "v1", "1", 2, 2, 5)
			orphan.OwnerReferences = nil
			stray := rsFor(d, "v0", "0", 1, 1, 50)
			stray.Labels = map[string]string{"app": "elsewhere"}
			return syncWorld{cached: objs(d, orphan, stray)}
		}, ""},
		{"deletion race", func() syncWorld {
			d := dep("foo", 2, "v1")
			live := d.DeepCopy()
			live.DeletionTimestamp = ptr.To(metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
			live.Finalizers = []string{"foregroundDeletion"}
			orphan := rsFor(d, "v1", "1", 2, 2, 5)
			orphan.OwnerReferences = nil
			return syncWorld{cached: objs(d, orphan), served: objs(live, orphan)}
		}, ""},
		{"being deleted", func() syncWorld {
			d := dep("foo", 2, "v2")
			d.DeletionTimestamp = ptr.To(metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
			d.Finalizers = []string{"foregroundDeletion"}
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 2, 2, 60))}
		}, ""},
		{"selecting all", func() syncWorld {
			d := dep("foo", 2, "v1")
			d.Spec.Selector = &metav1.LabelSelector{}
			return syncWorld{cached: objs(d)}
		}, ""},
		{"recreate scales old down", func() syncWorld {
			d := dep("foo", 3, "v2")
			d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 3, 3, 60))}
		}, ""},
		{"recreate waits for old pods", func() syncWorld {
			d := dep("foo", 3, "v2")
			d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
			old := rsFor(d, "v1", "1", 0, 0, 60)
			return syncWorld{cached: objs(d, old, pod(old, "p1", corev1.PodRunning), pod(old, "p2", corev1.PodSucceeded))}
		}, ""},
		{"recreate creates the new set", func() syncWorld {
			d := dep("foo", 3, "v2")
			d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
			old := rsFor(d, "v1", "1", 0, 0, 60)
			return syncWorld{cached: objs(d, old, pod(old, "p1", corev1.PodFailed))}
		}, ""},
		{"stalled past the deadline", func() syncWorld {
			d := dep("foo", 1, "v2")
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromInt32(0))}
			d.Annotations = map[string]string{ours.RevisionAnnotation: "2"}
			long := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			d.Status = appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 2, UpdatedReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1, UnavailableReplicas: 1,
				Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "ReplicaSetUpdated", LastUpdateTime: long, LastTransitionTime: long}}}
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 1, 1, 60), rsFor(d, "v2", "2", 1, 0, 1))}
		}, ""},
		{"new set revision behind and minReadySeconds changed", func() syncWorld {
			d := dep("foo", 3, "v2")
			d.Spec.MinReadySeconds = 9
			d.Annotations = map[string]string{ours.RevisionAnnotation: "2", "team": "blue"}
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 0, 0, 90), rsFor(d, "v2", "1", 3, 3, 60), rsFor(d, "v0", "5", 0, 0, 100))}
		}, ""},
		{"replica failure surfaces", func() syncWorld {
			d := dep("foo", 3, "v2")
			d.Annotations = map[string]string{ours.RevisionAnnotation: "2"}
			cur := rsFor(d, "v2", "2", 3, 1, 5)
			cur.Status.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: "quota",
				LastTransitionTime: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}}
			return syncWorld{cached: objs(d, cur)}
		}, ""},
		{"stalled within the deadline", func() syncWorld {
			d := dep("foo", 1, "v2")
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromInt32(0))}
			d.Annotations = map[string]string{ours.RevisionAnnotation: "2"}
			recent := metav1.NewTime(time.Now().Add(-time.Minute).Truncate(time.Second))
			d.Status = appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 2, UpdatedReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1, UnavailableReplicas: 1,
				TerminatingReplicas: ptr.To[int32](0),
				Conditions: []appsv1.DeploymentCondition{
					{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable", Message: "Deployment has minimum availability.", LastUpdateTime: recent, LastTransitionTime: recent},
					{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "ReplicaSetUpdated", LastUpdateTime: recent, LastTransitionTime: recent}}}
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 1, 1, 60), rsFor(d, "v2", "2", 1, 0, 1))}
		}, ""},
		{"nil maxSurge", func() syncWorld {
			d := dep("foo", 4, "v2")
			d.Spec.Strategy.RollingUpdate.MaxSurge = nil
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 4, 4, 60))}
		}, ""},
		{"negative maxSurge from an old object", func() syncWorld {
			d := dep("foo", 4, "v2")
			d.Spec.Strategy.RollingUpdate.MaxSurge = ptr.To(intstr.FromInt32(-1))
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 4, 4, 60))}
		}, ""},
		{"old set reports more available than its size", func() syncWorld {
			d := dep("foo", 10, "v2")
			d.Annotations = map[string]string{ours.RevisionAnnotation: "2"}
			old := rsFor(d, "v1", "1", 5, 7, 60)
			return syncWorld{cached: objs(d, old, rsFor(d, "v2", "2", 6, 6, 1))}
		}, ""},
		{"scaled to zero mid-rollout", func() syncWorld {
			d := dep("foo", 0, "v2")
			d.Annotations = map[string]string{ours.RevisionAnnotation: "2"}
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 3, 3, 60), rsFor(d, "v2", "2", 2, 2, 1))}
		}, ""},
		{"scaled up with no max-replicas annotations", func() syncWorld {
			d := dep("foo", 9, "v2")
			d.Annotations = map[string]string{ours.RevisionAnnotation: "2"}
			d.Status.Replicas = 5
			a, b := rsFor(d, "v1", "1", 3, 3, 60), rsFor(d, "v2", "2", 2, 2, 1)
			for _, rs := range []*appsv1.ReplicaSet{a, b} {
				delete(rs.Annotations, ours.MaxReplicasAnnotation)
				rs.Annotations[ours.DesiredReplicasAnnotation] = "5"
			}
			return syncWorld{cached: objs(d, a, b)}
		}, ""},
		{"orphan being deleted is not adopted", func() syncWorld {
			d := dep("foo", 2, "v1")
			orphan := rsFor(d, "v1", "1", 2, 2, 5)
			orphan.OwnerReferences = nil
			orphan.DeletionTimestamp = ptr.To(metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
			orphan.Finalizers = []string{"x"}
			return syncWorld{cached: objs(d, orphan)}
		}, ""},
		{"terminating count unknown on a synced set", func() syncWorld {
			d := dep("foo", 2, "v1")
			d.Annotations = map[string]string{ours.RevisionAnnotation: "1"}
			rs := rsFor(d, "v1", "1", 2, 2, 5)
			rs.Status.TerminatingReplicas = nil
			return syncWorld{cached: objs(d, rs)}
		}, ""},
		{"paused while being deleted", func() syncWorld {
			d := dep("foo", 5, "v1")
			d.Spec.Paused = true
			d.DeletionTimestamp = ptr.To(metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
			d.Finalizers = []string{"foregroundDeletion"}
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 2, 2, 5))}
		}, ""},
		{"maxUnavailable above replicas", func() syncWorld {
			d := dep("foo", 4, "v2")
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromInt32(10))}
			d.Annotations = map[string]string{ours.RevisionAnnotation: "2"}
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 4, 4, 60), rsFor(d, "v2", "2", 1, 1, 1))}
		}, ""},
		{"maxUnavailable 100%", func() syncWorld {
			d := dep("foo", 4, "v2")
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromString("0%")), MaxUnavailable: ptr.To(intstr.FromString("100%"))}
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 4, 4, 60))}
		}, ""},
		{"maxSurge not a percentage", func() syncWorld {
			d := dep("foo", 4, "v2")
			d.Spec.Strategy.RollingUpdate.MaxSurge = ptr.To(intstr.FromString("lots"))
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 4, 4, 60))}
		}, ""},
		{"replicas at MaxInt32", func() syncWorld {
			d := dep("foo", 1<<31-1, "v2")
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 3, 3, 60))}
		}, ""},
		{"unparsable revision on an old set", func() syncWorld {
			d := dep("foo", 2, "v3")
			return syncWorld{cached: objs(d, rsFor(d, "v1", "abc", 0, 0, 90), rsFor(d, "v2", "4", 2, 2, 60))}
		}, ""},
		{"never-synced set and selector expressions", func() syncWorld {
			d := dep("foo", 2, "v1")
			d.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpDoesNotExist}}
			d.Annotations = map[string]string{ours.RevisionAnnotation: "1", "kubectl.kubernetes.io/last-applied-configuration": "{}", "deployment.kubernetes.io/other": "x"}
			rs := rsFor(d, "v1", "1", 2, 0, 1)
			rs.Status = appsv1.ReplicaSetStatus{}
			return syncWorld{cached: objs(d, rs)}
		}, ""},
		{"new generation of a complete rollout", func() syncWorld {
			d := dep("foo", 2, "v1")
			d.Generation = 3
			d.Annotations = map[string]string{ours.RevisionAnnotation: "1"}
			long := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			d.Status = appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 2, AvailableReplicas: 2,
				Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable", LastUpdateTime: long, LastTransitionTime: long}}}
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 2, 2, 60))}
		}, ""},
		{"the new set is being deleted", func() syncWorld {
			d := dep("foo", 2, "v2")
			d.Annotations = map[string]string{ours.RevisionAnnotation: "1"}
			cur := rsFor(d, "v2", "2", 2, 2, 5)
			cur.DeletionTimestamp = ptr.To(metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
			cur.Finalizers = []string{"x"}
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 0, 0, 60), cur)}
		}, ""},
		{"rollback to a set with revision history", func() syncWorld {
			d := dep("foo", 2, "v2")
			d.Annotations = map[string]string{ours.RevisionAnnotation: "5", appsv1.DeprecatedRollbackTo: "4"}
			old := rsFor(d, "v1", "4", 0, 0, 60)
			old.Annotations[ours.RevisionHistoryAnnotation] = "1,3"
			return syncWorld{cached: objs(d, old, rsFor(d, "v2", "5", 2, 2, 1))}
		}, ""},
		{"after a rollback: old set raised to a new revision", func() syncWorld {
			d := dep("foo", 2, "v1")
			d.Annotations = map[string]string{ours.RevisionAnnotation: "5"}
			old := rsFor(d, "v1", "4", 0, 0, 60)
			old.Annotations[ours.RevisionHistoryAnnotation] = "1,3"
			return syncWorld{cached: objs(d, old, rsFor(d, "v2", "5", 2, 2, 1))}
		}, ""},
		{"paused with a deadline and no conditions", func() syncWorld {
			d := dep("foo", 3, "v2")
			d.Spec.Paused = true
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 3, 3, 60))}
		}, ""},
		{"a percentage that overflows int32", func() syncWorld {
			d := dep("foo", 1<<30, "v2")
			d.Spec.Strategy.RollingUpdate.MaxSurge = ptr.To(intstr.FromString("1000%"))
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 3, 3, 60))}
		}, ""},
		{"both fenceposts zero", func() syncWorld {
			d := dep("foo", 4, "v2")
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromInt32(0)), MaxUnavailable: ptr.To(intstr.FromInt32(0))}
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 4, 4, 60))}
		}, ""},
		// Issue 18: upstream cuts the desired-replicas annotation to an int32
		// in its saturation check, so 2^32+4 counts as 4.
		{"desired-replicas beyond int32 on a saturated new set (rolling, paused)", func() syncWorld {
			d := dep("foo", 4, "v2")
			d.Spec.Paused = true
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromString("99%")), MaxUnavailable: ptr.To(intstr.FromString("25%"))}
			d.Annotations = map[string]string{ours.RevisionAnnotation: "2"}
			cur := rsFor(d, "v2", "2", 4, 4, 1)
			cur.Annotations[ours.DesiredReplicasAnnotation] = "4294967300"
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 3, 3, 60), cur)}
		}, ""},
		{"desired-replicas beyond int32 on a saturated new set (recreate, paused)", func() syncWorld {
			d := dep("foo", 4, "v3")
			d.Spec.Paused = true
			d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
			d.Annotations = map[string]string{ours.RevisionAnnotation: "3"}
			cur := rsFor(d, "v3", "3", 4, 4, 1)
			cur.Annotations[ours.DesiredReplicasAnnotation] = "4294967300"
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 3, 3, 90), rsFor(d, "v2", "2", 2, 2, 60), cur)}
		}, ""},
		// Issue 18: with parsed and unparsable revisions mixed, which old sets
		// the history cleanup deletes depends on the sort algorithm.
		{"history cleanup over 14 old sets with unparsable revisions", func() syncWorld {
			d := dep("foo", 6, "v-new")
			d.Spec.RevisionHistoryLimit = ptr.To[int32](2)
			d.Annotations = map[string]string{ours.RevisionAnnotation: "17"}
			d.Status = appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 6, UpdatedReplicas: 6, ReadyReplicas: 6, AvailableReplicas: 6}
			w := objs(d, rsFor(d, "v-new", "17", 6, 6, 1))
			// Oldest first; "" is a set without a revision annotation.
			revisions := []string{"14", "1", "10", "4", "x1", "9", "16", "", "7", "", "abc", "8", "", "2"}
			for i, rev := range revisions {
				old := rsFor(d, fmt.Sprintf("v%d", i), rev, 0, 0, 200-10*i)
				if rev == "" {
					delete(old.Annotations, ours.RevisionAnnotation)
				}
				w = append(w, old)
			}
			return syncWorld{cached: w}
		}, ""},
		{"percentages above 100", func() syncWorld {
			d := dep("foo", 4, "v2")
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromString("300%")), MaxUnavailable: ptr.To(intstr.FromString("150%"))}
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 4, 4, 60))}
		}, ""},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			start := time.Now()
			want, _ := runUpstream(testContext(t), t, sc.world(), ns+"/foo", start)
			got, _ := runOurs(testContext(t), t, sc.world(), ns+"/foo", start)
			if diff := cmp.Diff(want, got, sameOutcome); diff != "" {
				if sc.known != "" {
					t.Skipf("known difference (%s):\n%s", sc.known, diff)
				}
				t.Errorf("ours differs from upstream (-upstream +ours):\n%s", diff)
			} else if sc.known != "" {
				t.Errorf("the known difference (%s) is gone: drop the mark", sc.known)
			}
			if testing.Verbose() {
				t.Logf("upstream: %d actions, %d events, failed=%v, requeue=%+v\n%s\n%s", len(want.Actions), len(want.Events), want.Failed, want.Requeue,
					strings.Join(want.Actions, "\n"), strings.Join(want.Events, "\n"))
			}
		})
	}
}

// settledSlowly is the world after a pass: what the API server holds, with
// the ReplicaSet controller's work done, except that each ReplicaSet gains
// at most step available pods per pass over what it had in prev (pods
// appear at once, become available slowly), so rollouts pass through
// partial states.
func settledSlowly(t *testing.T, client *fake.Clientset, prev *syncWorld, step int32) syncWorld {
	had := map[string]int32{}
	if prev != nil {
		for _, o := range prev.cached {
			if rs, ok := o.(*appsv1.ReplicaSet); ok {
				had[rs.Name] = rs.Status.AvailableReplicas
			}
		}
	}
	ctx := context.Background()
	var out []runtime.Object
	ds, err := client.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range ds.Items {
		out = append(out, &ds.Items[i])
	}
	rss, err := client.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range rss.Items {
		rs := &rss.Items[i]
		// The fake API server assigns neither UIDs nor creation times.
		if rs.UID == "" {
			rs.UID = types.UID("uid-" + rs.Name)
		}
		if rs.CreationTimestamp.IsZero() {
			rs.CreationTimestamp = metav1.NewTime(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(len(rss.Items)+i) * time.Minute))
		}
		n := *rs.Spec.Replicas
		avail := min(n, had[rs.Name]+step)
		rs.Status = appsv1.ReplicaSetStatus{Replicas: n, FullyLabeledReplicas: n, ReadyReplicas: avail, AvailableReplicas: avail,
			ObservedGeneration: rs.Generation, TerminatingReplicas: ptr.To[int32](0)}
		out = append(out, rs)
	}
	if prev != nil && hasPods(*prev) {
		out = append(out, nextPods(prev, out)...)
	}
	return syncWorld{cached: out}
}

func hasPods(w syncWorld) bool {
	for _, o := range w.cached {
		if _, ok := o.(*corev1.Pod); ok {
			return true
		}
	}
	return false
}

// nextPods plays the ReplicaSet controller and the kubelet for pods: a
// ReplicaSet below its size gets running pods; one above it has its extra
// pods marked for deletion, and pods marked in the previous pass are gone.
func nextPods(prev *syncWorld, objects []runtime.Object) []runtime.Object {
	byOwner := map[types.UID][]*corev1.Pod{}
	for _, o := range prev.cached {
		if p, ok := o.(*corev1.Pod); ok && p.DeletionTimestamp == nil {
			ref := metav1.GetControllerOf(p)
			byOwner[ref.UID] = append(byOwner[ref.UID], p.DeepCopy())
		}
	}
	var out []runtime.Object
	for _, o := range objects {
		rs, ok := o.(*appsv1.ReplicaSet)
		if !ok {
			continue
		}
		pods := byOwner[rs.UID]
		for i := int32(len(pods)); i < *rs.Spec.Replicas; i++ {
			pods = append(pods, pod(rs, fmt.Sprintf("%s-%d", rs.Name, i), corev1.PodRunning))
		}
		for i, p := range pods {
			if int32(i) >= *rs.Spec.Replicas {
				p.DeletionTimestamp = ptr.To(metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
				p.Finalizers = []string{"kubelet"}
			}
			out = append(out, p)
		}
	}
	return out
}

// TestRolloutsMatchUpstream drives whole rollouts pass after pass, both
// controllers starting every pass from the same world (the one upstream's
// previous pass left, settled), and compares every pass.
func TestRolloutsMatchUpstream(t *testing.T) {
	tests := []struct {
		name    string
		world   func() syncWorld
		between func(pass int, w *syncWorld)
		step    int32 // pods becoming available per ReplicaSet per pass; 0: all at once
	}{
		{"rolling 10 replicas v1 -> v2", func() syncWorld {
			d := dep("foo", 10, "v2")
			d.Spec.RevisionHistoryLimit = ptr.To[int32](1)
			d.Annotations = map[string]string{ours.RevisionAnnotation: "2"}
			return syncWorld{cached: objs(d, rsFor(d, "v0", "1", 0, 0, 120), rsFor(d, "v1", "2", 10, 10, 60))}
		}, nil, 0},
		{"recreate 3 replicas v1 -> v2", func() syncWorld {
			d := dep("foo", 3, "v2")
			d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 3, 3, 60))}
		}, nil, 0},
		{"rolling with a resize and a new template midway", func() syncWorld {
			d := dep("foo", 6, "v2")
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromInt32(2)), MaxUnavailable: ptr.To(intstr.FromInt32(1))}
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 6, 6, 60))}
		}, func(pass int, w *syncWorld) {
			for _, o := range w.cached {
				if d, ok := o.(*appsv1.Deployment); ok {
					switch pass {
					case 2:
						d.Spec.Replicas = ptr.To[int32](11)
					case 4:
						d.Spec.Template.Spec.Containers[0].Image = "v3"
					}
				}
			}
		}, 0},
		{"rolling 10 replicas, pods ready one per pass", func() syncWorld {
			d := dep("foo", 10, "v2")
			d.Annotations = map[string]string{ours.RevisionAnnotation: "1"}
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 10, 10, 60))}
		}, nil, 1},
		{"rolling 7 replicas 0 surge, pods ready two per pass", func() syncWorld {
			d := dep("foo", 7, "v2")
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromInt32(0)), MaxUnavailable: ptr.To(intstr.FromString("30%"))}
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 7, 5, 60))}
		}, nil, 2},
		{"recreate with pods terminating slowly", func() syncWorld {
			d := dep("foo", 3, "v2")
			d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
			old := rsFor(d, "v1", "1", 3, 3, 60)
			return syncWorld{cached: objs(d, old, pod(old, old.Name+"-0", corev1.PodRunning), pod(old, old.Name+"-1", corev1.PodRunning),
				pod(old, old.Name+"-2", corev1.PodRunning))}
		}, nil, 1},
		{"rollback midway", func() syncWorld {
			d := dep("foo", 4, "v2")
			return syncWorld{cached: objs(d, rsFor(d, "v1", "1", 4, 4, 60))}
		}, func(pass int, w *syncWorld) {
			if pass != 2 {
				return
			}
			for _, o := range w.cached {
				if d, ok := o.(*appsv1.Deployment); ok {
					d.Annotations[appsv1.DeprecatedRollbackTo] = "0"
				}
			}
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := tt.world()
			passes := 0
			for pass := 0; pass < 30; pass++ {
				if tt.between != nil {
					tt.between(pass, &w)
				}
				start := time.Now()
				want, upstreamClient := runUpstream(testContext(t), t, w, ns+"/foo", start)
				got, _ := runOurs(testContext(t), t, w, ns+"/foo", start)
				if diff := cmp.Diff(want, got, sameOutcome); diff != "" {
					t.Fatalf("pass %d: ours differs from upstream (-upstream +ours):\n%s", pass, diff)
				}
				passes++
				if testing.Verbose() {
					for _, a := range want.Actions {
						t.Logf("pass %d: %.120s", pass, a)
					}
					t.Logf("pass %d events: %v failed=%v", pass, want.Events, want.Failed)
				}
				if len(want.Actions) == 0 && pass > 5 {
					break
				}
				step := tt.step
				if step == 0 {
					step = 1 << 30
				}
				w = settledSlowly(t, upstreamClient, &w, step)
			}
			var sizes []string
			for _, o := range w.cached {
				if rs, ok := o.(*appsv1.ReplicaSet); ok {
					sizes = append(sizes, fmt.Sprintf("%s(%s)=%d", rs.Name, rs.Spec.Template.Spec.Containers[0].Image, *rs.Spec.Replicas))
				}
			}
			t.Logf("%d identical passes; final ReplicaSets: %v", passes, sizes)
		})
	}
}
