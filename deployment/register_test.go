package deployment

import (
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	appslisters "k8s.io/client-go/listers/apps/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/controllertest"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// keyRecorder is a handler.Queue that remembers the keys added, in order,
// and the priority of each.
type keyRecorder struct {
	keys       []string
	priorities []int
}

func (k *keyRecorder) AddWithOpts(o workqueue.AddOpts, keys ...string) {
	for _, key := range keys {
		k.keys = append(k.keys, key)
		k.priorities = append(k.priorities, o.Priority)
	}
}

// ruleHandlers are the ReplicaSet and pod handlers NewController registers,
// bound to a keyRecorder, so tests drive the rules as informers would.
type ruleHandlers struct {
	replicaSets, pods cache.ResourceEventHandler
}

// newRules returns the event handlers over caches holding objs, and the keys
// they add.
func newRules(t *testing.T, objs ...runtime.Object) (ruleHandlers, *keyRecorder) {
	t.Helper()
	dIndexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	rsIndexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, obj := range objs {
		var err error
		switch o := obj.(type) {
		case *appsv1.Deployment:
			err = dIndexer.Add(o)
		case *appsv1.ReplicaSet:
			err = rsIndexer.Add(o)
		default:
			t.Fatalf("newRules: unexpected %T", obj)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	rules := &eventRules{
		deployments: appslisters.NewDeploymentLister(dIndexer),
		replicaSets: appslisters.NewReplicaSetLister(rsIndexer),
		log:         logr.Discard(),
	}
	q := &keyRecorder{}
	return ruleHandlers{
		replicaSets: rules.replicaSetHandler().EventHandler(q),
		pods:        rules.podHandler().EventHandler(q),
	}, q
}

func orphanOf(rs *appsv1.ReplicaSet) *appsv1.ReplicaSet {
	rs = rs.DeepCopy()
	rs.OwnerReferences = nil
	return rs
}

func TestReplicaSetAddRules(t *testing.T) {
	web := newDeployment("web", 1)
	twin := newDeployment("twin", 1) // selects the same labels as web
	twin.Spec.Selector = web.Spec.Selector.DeepCopy()
	everything := newDeployment("everything", 1)
	everything.Spec.Selector = &metav1.LabelSelector{}
	noSelector := newDeployment("noselector", 1)
	noSelector.Spec.Selector = nil
	invalid := newDeployment("invalid", 1)
	invalid.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Bogus"}}}
	elsewhere := newDeployment("elsewhere", 1)
	elsewhere.Namespace = "other"
	elsewhere.Spec.Selector = web.Spec.Selector.DeepCopy()

	owned := newReplicaSet(web, "abc", 1, 0)
	replaced := newReplicaSet(web, "abc", 1, 0) // its owner's UID is not the cached web's
	replaced.OwnerReferences[0].UID = "uid-of-a-deleted-web"
	notADeployment := newReplicaSet(web, "abc", 1, 0)
	notADeployment.OwnerReferences[0].Kind = "StatefulSet"
	legacyGroup := newReplicaSet(web, "abc", 1, 0)
	legacyGroup.OwnerReferences[0].APIVersion = "extensions/v1beta1"
	deletingOwned := newReplicaSet(web, "abc", 1, 0)
	deletingOwned.DeletionTimestamp = ptr.To(metav1.NewTime(testEpoch))
	deletingOrphan := orphanOf(deletingOwned)
	unlabelledOrphan := orphanOf(owned)
	unlabelledOrphan.Labels = nil

	tests := []struct {
		name string
		rs   *appsv1.ReplicaSet
		want []string
	}{
		{name: "owned: its Deployment", rs: owned, want: []string{"default/web"}},
		{name: "owner with another UID: nothing", rs: replaced},
		{name: "controller of another kind: nothing", rs: notADeployment},
		{name: "owner reference of an older API group still resolves", rs: legacyGroup, want: []string{"default/web"}},
		{name: "being deleted: handled as a delete (owner)", rs: deletingOwned, want: []string{"default/web"}},
		{name: "orphan being deleted: nothing", rs: deletingOrphan},
		{name: "orphan: every selecting Deployment, no empty, nil or invalid selector", rs: orphanOf(owned), want: []string{"default/twin", "default/web"}},
		{name: "orphan without labels: nothing", rs: unlabelledOrphan},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rules, q := newRules(t, web, twin, everything, noSelector, invalid, elsewhere)
			rules.replicaSets.OnAdd(tt.rs, false)
			slices.Sort(q.keys)
			if diff := cmp.Diff(tt.want, q.keys); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReplicaSetUpdateRules(t *testing.T) {
	web := newDeployment("web", 1)
	api := newDeployment("api", 1)
	api.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "api"}}

	base := newReplicaSet(web, "abc", 1, 0)
	bump := func(rs *appsv1.ReplicaSet, f func(*appsv1.ReplicaSet)) *appsv1.ReplicaSet {
		rs = rs.DeepCopy()
		rs.ResourceVersion = "2"
		if f != nil {
			f(rs)
		}
		return rs
	}
	ownedByAPI := func(rs *appsv1.ReplicaSet) {
		rs.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(api, appsv1.SchemeGroupVersion.WithKind("Deployment"))}
	}
	relabel := func(rs *appsv1.ReplicaSet) { rs.Labels = map[string]string{"app": "api"} }
	orphan := orphanOf(base)

	tests := []struct {
		name     string
		old, cur *appsv1.ReplicaSet
		want     []string
	}{
		{name: "resync (same resourceVersion): nothing", old: base, cur: base.DeepCopy()},
		{name: "owned, status changed: the owner", old: base, cur: bump(base, func(rs *appsv1.ReplicaSet) { rs.Status.Replicas = 1 }), want: []string{"default/web"}},
		{name: "owner changed: old and new owners", old: base, cur: bump(base, ownedByAPI), want: []string{"default/web", "default/api"}},
		{name: "released: old owner, then Deployments selecting it", old: base, cur: bump(base, func(rs *appsv1.ReplicaSet) {
			rs.OwnerReferences = nil
			relabel(rs)
		}), want: []string{"default/web", "default/api"}},
		{name: "adopted: the new owner only", old: orphan, cur: bump(orphan, ownedByAPI), want: []string{"default/api"}},
		{name: "orphan relabelled: Deployments selecting the new labels", old: orphan, cur: bump(orphan, relabel), want: []string{"default/api"}},
		{name: "orphan, labels unchanged: nothing", old: orphan, cur: bump(orphan, func(rs *appsv1.ReplicaSet) { rs.Status.Replicas = 3 })},
		{name: "owned labels changed: only the owner", old: base, cur: bump(base, relabel), want: []string{"default/web"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rules, q := newRules(t, web, api)
			rules.replicaSets.OnUpdate(tt.old, tt.cur)
			if diff := cmp.Diff(tt.want, q.keys); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReplicaSetDeleteRules(t *testing.T) {
	web := newDeployment("web", 1)
	owned := newReplicaSet(web, "abc", 1, 0)
	tests := []struct {
		name string
		obj  any
		want []string
	}{
		{name: "owned: the owner", obj: owned, want: []string{"default/web"}},
		{name: "tombstone of an owned one: the owner", obj: cache.DeletedFinalStateUnknown{Key: "default/web-abc", Obj: owned}, want: []string{"default/web"}},
		{name: "orphan: nothing", obj: orphanOf(owned)},
		{name: "tombstone of something else: nothing", obj: cache.DeletedFinalStateUnknown{Key: "default/x", Obj: &corev1.Pod{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rules, q := newRules(t, web)
			rules.replicaSets.OnDelete(tt.obj)
			if diff := cmp.Diff(tt.want, q.keys); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPodDeleteRules(t *testing.T) {
	recreate := withRecreate(newDeployment("batch", 1))
	rolling := newDeployment("web", 1)
	recreateRS := newReplicaSet(recreate, "abc", 1, 0)
	rollingRS := newReplicaSet(rolling, "def", 1, 0)
	orphanRS := orphanOf(newReplicaSet(recreate, "orphan", 1, 0))

	staleRef := newPod(recreateRS, "stale", corev1.PodRunning)
	staleRef.OwnerReferences[0].UID = "uid-of-a-deleted-rs"
	notRS := newPod(recreateRS, "job-pod", corev1.PodRunning)
	notRS.OwnerReferences[0].Kind = "Job"
	missingRS := newPod(newReplicaSet(recreate, "gone", 1, 0), "p", corev1.PodRunning)
	bare := newPod(recreateRS, "bare", corev1.PodRunning)
	bare.OwnerReferences = nil

	tests := []struct {
		name string
		obj  any
		want []string
	}{
		{name: "pod of a Recreate Deployment", obj: newPod(recreateRS, "p", corev1.PodRunning), want: []string{"default/batch"}},
		{name: "finished pod of a Recreate Deployment", obj: newPod(recreateRS, "p", corev1.PodSucceeded), want: []string{"default/batch"}},
		{name: "tombstone", obj: cache.DeletedFinalStateUnknown{Obj: newPod(recreateRS, "p", corev1.PodRunning)}, want: []string{"default/batch"}},
		{name: "RollingUpdate Deployment: nothing", obj: newPod(rollingRS, "p", corev1.PodRunning)},
		{name: "ReplicaSet UID differs: nothing", obj: staleRef},
		{name: "controller is not a ReplicaSet: nothing", obj: notRS},
		{name: "ReplicaSet not in the cache: nothing", obj: missingRS},
		{name: "orphan ReplicaSet: nothing", obj: newPod(orphanRS, "p", corev1.PodRunning)},
		{name: "pod without controller: nothing", obj: bare},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rules, q := newRules(t, recreate, rolling, recreateRS, rollingRS, orphanRS)
			rules.pods.OnDelete(tt.obj)
			if diff := cmp.Diff(tt.want, q.keys); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPodRulesOnlyDeletes checks that creating or updating a Recreate
// Deployment's pod wakes nothing: only a deletion can unblock it.
func TestPodRulesOnlyDeletes(t *testing.T) {
	recreate := withRecreate(newDeployment("batch", 1))
	rs := newReplicaSet(recreate, "abc", 1, 0)
	rules, q := newRules(t, recreate, rs)
	p := newPod(rs, "p", corev1.PodRunning)
	rules.pods.OnAdd(p, false)
	finished := p.DeepCopy()
	finished.ResourceVersion = "2"
	finished.Status.Phase = corev1.PodSucceeded
	rules.pods.OnUpdate(p, finished)
	if len(q.keys) != 0 {
		t.Fatalf("keys = %v after a pod create and update, want none", q.keys)
	}
	rules.pods.OnDelete(finished)
	if diff := cmp.Diff([]string{"default/batch"}, q.keys); diff != "" {
		t.Errorf("keys after the delete (-want +got):\n%s", diff)
	}
}

// TestReplicaSetRulePriorities checks that ReplicaSets from the initial list
// do not hold up live events: they add at low priority, live events at
// normal priority.
func TestReplicaSetRulePriorities(t *testing.T) {
	recreate := withRecreate(newDeployment("batch", 1))
	owned := newReplicaSet(recreate, "abc", 1, 0)
	changed := owned.DeepCopy()
	changed.ResourceVersion = "2"
	changed.Status.Replicas, changed.Status.AvailableReplicas = 1, 1

	rules, q := newRules(t, recreate, owned)
	rules.replicaSets.OnAdd(owned, true)
	rules.replicaSets.OnAdd(owned, false)
	rules.replicaSets.OnUpdate(owned, changed)
	rules.replicaSets.OnDelete(changed)
	rules.pods.OnDelete(newPod(owned, "p", corev1.PodRunning))
	want := []int{workqueue.PriorityLow, workqueue.PriorityNormal, workqueue.PriorityNormal, workqueue.PriorityNormal, workqueue.PriorityNormal}
	if diff := cmp.Diff(want, q.priorities); diff != "" {
		t.Errorf("priorities of initial add, add, update, delete, pod delete (-want +got):\n%s", diff)
	}
}

// TestNewControllerRollsOut runs the wired controller against a fake cluster:
// a new Deployment gets its ReplicaSet, named with upstream's hash.
func TestNewControllerRollsOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newDeployment("web", 2)
		env := controllertest.New(t, d)
		ctrl, _, err := NewController(env.Client, env.Informers, record.NewFakeRecorder(100), Options{})
		if err != nil {
			t.Fatal(err)
		}
		env.Start(ctrl)

		rss, err := env.Client.AppsV1().ReplicaSets(testNamespace).List(env.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := "web-" + PodTemplateHash(&d.Spec.Template, nil)
		if len(rss.Items) != 1 || rss.Items[0].Name != want {
			t.Fatalf("ReplicaSets = %v, want exactly %s", rsNamesOf(rss.Items), want)
		}
		if got := ptr.Deref(rss.Items[0].Spec.Replicas, -1); got != 2 {
			t.Errorf("new ReplicaSet has %d replicas, want 2", got)
		}
	})
}

// TestNewControllerRetryPolicy checks upstream's retry policy end to end: a
// failing Deployment is retried 15 times with backoff, then dropped; an error
// caused by a terminating namespace is not retried.
func TestNewControllerRetryPolicy(t *testing.T) {
	tests := []struct {
		name         string
		err          error
		wantAttempts int
	}{
		{name: "plain error: 1 + 15 retries", err: errors.New("etcd is on fire"), wantAttempts: 1 + MaxRetries},
		{name: "terminating namespace: no retry", err: terminatingNamespaceError(), wantAttempts: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				d := newDeployment("web", 2)
				d.Spec.ProgressDeadlineSeconds = nil // no condition writes: each attempt is one create
				env := controllertest.New(t, d)
				attempts := 0
				env.Client.PrependReactor("create", "replicasets", func(clienttesting.Action) (bool, runtime.Object, error) {
					attempts++
					return true, nil, tt.err
				})
				ctrl, _, err := NewController(env.Client, env.Informers, record.NewFakeRecorder(1000), Options{})
				if err != nil {
					t.Fatal(err)
				}
				env.Start(ctrl)
				// The 15th retry waits 5 ms × 2^14 ≈ 82 s; an hour covers them all.
				env.Advance(time.Hour)
				if attempts != tt.wantAttempts {
					t.Errorf("create attempts = %d, want %d", attempts, tt.wantAttempts)
				}
				env.Advance(24 * time.Hour)
				if attempts != tt.wantAttempts {
					t.Errorf("create attempts after a day = %d, want still %d (dropped)", attempts, tt.wantAttempts)
				}
			})
		})
	}
}

func terminatingNamespaceError() error {
	err := apierrors.NewForbidden(appsv1.Resource("replicasets"), "web-x", errors.New("namespace default is being terminated"))
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{Type: corev1.NamespaceTerminatingCause})
	return err
}

// TestNewControllerWakesRecreateOnPodDelete checks the pod wiring with
// upstream's scenario: a Recreate rollout waits for the last old pod, and
// that pod's deletion alone must wake it to create the new ReplicaSet.
func TestNewControllerWakesRecreateOnPodDelete(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := withTemplateImage(withRecreate(newDeployment("batch", 1)), "registry.example/app:v2")
		previous := withTemplateImage(withRecreate(newDeployment("batch", 1)), "registry.example/app:v1")
		oldRS := withRevision(withStatus(newReplicaSet(previous, PodTemplateHash(&previous.Spec.Template, nil), 0, 0), 0, 0, 0), "1")
		lastPod := newPod(oldRS, "batch-old-pod", corev1.PodRunning) // status.replicas already 0: only the pod shows it
		env := controllertest.New(t, d, oldRS, lastPod)
		ctrl, _, err := NewController(env.Client, env.Informers, record.NewFakeRecorder(100), Options{})
		if err != nil {
			t.Fatal(err)
		}
		env.Start(ctrl)
		if n := countCreates(env.WriteActions(), "replicasets"); n != 0 {
			t.Fatalf("%d ReplicaSets created while an old pod runs, want 0", n)
		}

		if err := env.Client.CoreV1().Pods(testNamespace).Delete(env.Context(), lastPod.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		env.Settle()
		// Count what exists, not create calls: a sync that runs before the
		// ReplicaSet informer has seen the new ReplicaSet tries to create it
		// again and gets AlreadyExists, as upstream's would.
		list, err := env.Client.AppsV1().ReplicaSets(testNamespace).List(env.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != 2 {
			t.Fatalf("%d ReplicaSets after the last old pod went, want 2 (the old one and one new)", len(list.Items))
		}
		newHash := PodTemplateHash(&d.Spec.Template, nil)
		if list.Items[0].Labels[appsv1.DefaultDeploymentUniqueLabelKey] != newHash && list.Items[1].Labels[appsv1.DefaultDeploymentUniqueLabelKey] != newHash {
			t.Errorf("no ReplicaSet with the new template's hash %q after the last old pod went", newHash)
		}
	})
}

func countCreates(actions []clienttesting.Action, resource string) int {
	n := 0
	for _, a := range actions {
		if a.GetVerb() == "create" && a.GetResource().Resource == resource {
			n++
		}
	}
	return n
}

func rsNamesOf(items []appsv1.ReplicaSet) []string {
	var out []string
	for _, rs := range items {
		out = append(out, rs.Name)
	}
	return out
}

func TestNewControllerRejectsMissingParts(t *testing.T) {
	env := fake.NewClientset()
	factory := informers.NewSharedInformerFactory(env, 0)
	recorder := record.NewFakeRecorder(1)
	for name, call := range map[string]func() error{
		"nil client":   func() error { _, _, err := NewController(nil, factory, recorder, Options{}); return err },
		"nil factory":  func() error { _, _, err := NewController(env, nil, recorder, Options{}); return err },
		"nil recorder": func() error { _, _, err := NewController(env, factory, nil, Options{}); return err },
		"bad controller options": func() error {
			_, _, err := NewController(env, factory, recorder, Options{Controller: controller.Options[string]{Workers: -1}})
			return err
		},
	} {
		if err := call(); err == nil {
			t.Errorf("%s: NewController() error = nil, want an error", name)
		}
	}
}

func TestEventRulesIgnoreForeignObjects(t *testing.T) {
	rules, q := newRules(t, newDeployment("web", 1))
	rules.replicaSets.OnAdd(&corev1.Pod{}, false)
	rules.replicaSets.OnUpdate(&corev1.Pod{}, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "2"}})
	rules.replicaSets.OnUpdate(&corev1.Pod{}, &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "2"}})
	rules.replicaSets.OnDelete(&corev1.Pod{})
	rules.pods.OnDelete(&appsv1.ReplicaSet{})
	rules.pods.OnDelete(cache.DeletedFinalStateUnknown{Obj: &appsv1.ReplicaSet{}})
	if len(q.keys) != 0 {
		t.Errorf("keys = %v, want none for objects of the wrong type", q.keys)
	}
}
