package deployment

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	appslisters "k8s.io/client-go/listers/apps/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2/ktesting"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller"
)

// syncRig is a Reconciler over a fake clientset and caches filled by hand.
// Objects put in the caches are copies: the Reconciler must never write to
// them, and tests compare against what they put in.
type syncRig struct {
	t           testing.TB
	client      *fake.Clientset
	deployments cache.Indexer
	replicaSets cache.Indexer
	pods        cache.Indexer
	recorder    *record.FakeRecorder
	clock       *clocktesting.FakeClock
	r           *Reconciler
}

// newSyncRig builds a Reconciler as NewController does, the ReplicaSet
// index included; configure changes its Config first.
func newSyncRig(t testing.TB, configure ...func(*Config)) *syncRig {
	t.Helper()
	g := &syncRig{
		t:           t,
		client:      fake.NewClientset(),
		deployments: cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}),
		replicaSets: cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc, ReplicaSetControllerIndexName: ReplicaSetControllerIndex}),
		pods:        cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{PodControllerIndexName: PodControllerIndex}),
		recorder:    record.NewFakeRecorder(100),
		clock:       clocktesting.NewFakeClock(testEpoch.Add(time.Hour)),
	}
	cfg := Config{
		Client:          g.client,
		Deployments:     appslisters.NewDeploymentLister(g.deployments),
		ReplicaSets:     appslisters.NewReplicaSetLister(g.replicaSets),
		ReplicaSetIndex: g.replicaSets,
		Pods:            g.pods,
		Recorder:        g.recorder,
		Clock:           g.clock,
	}
	for _, f := range configure {
		f(&cfg)
	}
	r, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	g.r = r
	return g
}

// add puts objects in both the caches and the API server.
func (g *syncRig) add(objs ...runtime.Object) {
	g.t.Helper()
	g.addCached(objs...)
	g.addServed(objs...)
}

// addCached puts objects in the caches only.
func (g *syncRig) addCached(objs ...runtime.Object) {
	g.t.Helper()
	for _, obj := range objs {
		var err error
		switch o := obj.(type) {
		case *appsv1.Deployment:
			err = g.deployments.Add(o.DeepCopy())
		case *appsv1.ReplicaSet:
			err = g.replicaSets.Add(o.DeepCopy())
		case *corev1.Pod:
			err = g.pods.Add(o.DeepCopy())
		default:
			g.t.Fatalf("addCached: unexpected %T", obj)
		}
		if err != nil {
			g.t.Fatal(err)
		}
	}
}

// addServed puts objects in the API server only.
func (g *syncRig) addServed(objs ...runtime.Object) {
	g.t.Helper()
	for _, obj := range objs {
		if err := g.client.Tracker().Add(obj.DeepCopyObject()); err != nil {
			g.t.Fatal(err)
		}
	}
}

func (g *syncRig) ctx() context.Context {
	_, ctx := ktesting.NewTestContext(g.t)
	return ctx
}

// reconcile runs one pass for d's key.
func (g *syncRig) reconcile(d *appsv1.Deployment) (controller.Result, error) {
	return g.r.Reconcile(g.ctx(), d.Namespace+"/"+d.Name)
}

// mustReconcile runs one pass and fails the test on error.
func (g *syncRig) mustReconcile(d *appsv1.Deployment) controller.Result {
	g.t.Helper()
	res, err := g.reconcile(d)
	if err != nil {
		g.t.Fatalf("Reconcile: %v", err)
	}
	return res
}

// writes lists the client's actions other than reads, as "verb resource[/subresource] name".
func (g *syncRig) writes() []string {
	var out []string
	for _, a := range g.client.Actions() {
		switch a.GetVerb() {
		case "get", "list", "watch":
			continue
		}
		res := a.GetResource().Resource
		if a.GetSubresource() != "" {
			res += "/" + a.GetSubresource()
		}
		out = append(out, strings.TrimSpace(a.GetVerb()+" "+res+" "+actionName(a)))
	}
	return out
}

// actionName is the name of the object an action is about.
func actionName(a clienttesting.Action) string {
	switch a := a.(type) {
	case interface{ GetObject() runtime.Object }: // creates and updates
		if m, err := metaOf(a.GetObject()); err == nil {
			return m.GetName()
		}
	case clienttesting.PatchAction:
		return a.GetName()
	case clienttesting.DeleteAction:
		return a.GetName()
	case clienttesting.GetAction:
		return a.GetName()
	}
	return ""
}

func metaOf(obj runtime.Object) (metav1.Object, error) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, fmt.Errorf("%T has no metadata", obj)
	}
	return m, nil
}

// updatedReplicaSets returns the ReplicaSets sent with update, in order.
func (g *syncRig) updatedReplicaSets() []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, a := range g.client.Actions() {
		if u, ok := a.(clienttesting.UpdateAction); ok {
			if rs, ok := u.GetObject().(*appsv1.ReplicaSet); ok {
				out = append(out, rs)
			}
		}
	}
	return out
}

// sizes maps each updated ReplicaSet's name to the size of its last update.
func (g *syncRig) sizes() map[string]int32 {
	out := map[string]int32{}
	for _, rs := range g.updatedReplicaSets() {
		out[rs.Name] = *rs.Spec.Replicas
	}
	return out
}

// lastDeploymentWrite returns the Deployment sent by the last update or
// status update, or nil.
func (g *syncRig) lastDeploymentWrite() *appsv1.Deployment {
	var last *appsv1.Deployment
	for _, a := range g.client.Actions() {
		if u, ok := a.(clienttesting.UpdateAction); ok {
			if d, ok := u.GetObject().(*appsv1.Deployment); ok {
				last = d
			}
		}
	}
	return last
}

// served reads an object back from the fake API server.
func (g *syncRig) servedReplicaSet(name string) *appsv1.ReplicaSet {
	g.t.Helper()
	rs, err := g.client.Tracker().Get(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}, testNamespace, name)
	if err != nil {
		g.t.Fatalf("get replicaset %s: %v", name, err)
	}
	return rs.(*appsv1.ReplicaSet)
}

// events drains the recorded events.
func (g *syncRig) events() []string {
	var out []string
	for {
		select {
		case e := <-g.recorder.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// failOn makes the fake API server answer verb on resource with err.
func (g *syncRig) failOn(verb, resource string, err error) {
	g.client.PrependReactor(verb, resource, func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, err
	})
}

func assertWrites(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("writes:\n got %q\nwant %q", got, want)
	}
}

func assertEvents(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("events:\n got %q\nwant %q", got, want)
	}
}

func TestNewValidatesConfig(t *testing.T) {
	indexed := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{PodControllerIndexName: PodControllerIndex})
	plain := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	valid := func() Config {
		store := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
		return Config{
			Client:      fake.NewClientset(),
			Deployments: appslisters.NewDeploymentLister(store),
			ReplicaSets: appslisters.NewReplicaSetLister(store),
			Pods:        indexed,
			Recorder:    record.NewFakeRecorder(1),
		}
	}
	tests := []struct {
		name    string
		edit    func(*Config)
		wantErr string
	}{
		{"valid", func(*Config) {}, ""},
		{"no client", func(c *Config) { c.Client = nil }, "missing Client"},
		{"no deployment lister", func(c *Config) { c.Deployments = nil }, "missing Deployments lister"},
		{"no replica set lister", func(c *Config) { c.ReplicaSets = nil }, "missing ReplicaSets lister"},
		{"no pods", func(c *Config) { c.Pods = nil }, "missing Pods indexer"},
		{"pods without the controller index", func(c *Config) { c.Pods = plain }, `has no "podController" index`},
		{"no recorder", func(c *Config) { c.Recorder = nil }, "missing Recorder"},
		{"replica set index without the controller index", func(c *Config) { c.ReplicaSetIndex = plain }, `has no "replicaSetController" index`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := valid()
			tt.edit(&cfg)
			r, err := New(cfg)
			if tt.wantErr == "" {
				if err != nil || r == nil {
					t.Fatalf("New = %v, %v; want a Reconciler", r, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("New error = %v; want it to mention %q", err, tt.wantErr)
			}
		})
	}
}

func TestNewDefaults(t *testing.T) {
	g := newSyncRig(t)
	if !g.r.trackTerminating {
		t.Error("TrackTerminatingReplicas should default to true, as the v1.37 feature gate does")
	}
	cfg := Config{
		Client:                   g.client,
		Deployments:              appslisters.NewDeploymentLister(g.deployments),
		ReplicaSets:              appslisters.NewReplicaSetLister(g.replicaSets),
		Pods:                     g.pods,
		Recorder:                 g.recorder,
		TrackTerminatingReplicas: ptr.To(false),
	}
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r.trackTerminating {
		t.Error("TrackTerminatingReplicas=false was ignored")
	}
	if r.clock == nil {
		t.Error("a nil Clock should mean the real clock")
	}
}

func TestReconcileBadKeyIsTerminal(t *testing.T) {
	g := newSyncRig(t)
	_, err := g.r.Reconcile(g.ctx(), "a/b/c")
	if !controller.IsTerminal(err) {
		t.Fatalf("Reconcile(bad key) = %v; want a terminal error", err)
	}
}

func TestReconcileDeploymentGoneDoesNothing(t *testing.T) {
	g := newSyncRig(t)
	res, err := g.r.Reconcile(g.ctx(), "default/missing")
	if err != nil || !res.IsZero() {
		t.Fatalf("Reconcile = %v, %v; want nothing", res, err)
	}
	assertWrites(t, g.writes())
}

// Upstream: TestSyncDeploymentCreatesReplicaSet.
func TestReconcileCreatesReplicaSet(t *testing.T) {
	g := newSyncRig(t)
	d := newDeployment("foo", 1)
	g.add(d)

	g.mustReconcile(d)

	hash := PodTemplateHash(&d.Spec.Template, nil)
	name := "foo-" + hash
	// The new ReplicaSet, then the revision (and NewReplicaSetCreated) on the
	// Deployment, then the rollout status.
	assertWrites(t, g.writes(), "create replicasets "+name, "update deployments/status foo", "update deployments/status foo")
	assertEvents(t, g.events(), "Normal ScalingReplicaSet Scaled up replica set "+name+" from 0 to 1")

	rs := g.servedReplicaSet(name)
	if got := rs.Labels[appsv1.DefaultDeploymentUniqueLabelKey]; got != hash {
		t.Errorf("label %s = %q, want %q", appsv1.DefaultDeploymentUniqueLabelKey, got, hash)
	}
	if got := rs.Spec.Selector.MatchLabels[appsv1.DefaultDeploymentUniqueLabelKey]; got != hash {
		t.Errorf("selector hash = %q, want %q", got, hash)
	}
	if got := rs.Spec.Template.Labels[appsv1.DefaultDeploymentUniqueLabelKey]; got != hash {
		t.Errorf("template hash = %q, want %q", got, hash)
	}
	if ref := metav1.GetControllerOf(rs); ref == nil || ref.UID != d.UID || !ptr.Deref(ref.BlockOwnerDeletion, false) {
		t.Errorf("controller ref = %+v, want one to %s blocking owner deletion", ref, d.UID)
	}
	if got := rs.Annotations[RevisionAnnotation]; got != "1" {
		t.Errorf("revision = %q, want 1", got)
	}
	if *rs.Spec.Replicas != 1 {
		t.Errorf("replicas = %d, want 1", *rs.Spec.Replicas)
	}
	if d.Spec.Template.Labels[appsv1.DefaultDeploymentUniqueLabelKey] != "" {
		t.Error("the test's Deployment was modified")
	}
	last := g.lastDeploymentWrite()
	if last.Annotations[RevisionAnnotation] != "1" {
		t.Errorf("deployment revision = %q, want 1", last.Annotations[RevisionAnnotation])
	}
	cond := GetCondition(last.Status, appsv1.DeploymentProgressing)
	if cond == nil || cond.Reason != ReasonNewReplicaSetCreated {
		t.Errorf("Progressing = %+v, want reason %s", cond, ReasonNewReplicaSetCreated)
	}
}

func TestReconcileNeverWritesTheCache(t *testing.T) {
	g := newSyncRig(t)
	d := newDeployment("foo", 3)
	g.add(d)
	g.mustReconcile(d)
	obj, _, _ := g.deployments.GetByKey("default/foo")
	cached := obj.(*appsv1.Deployment)
	if cached.Annotations[RevisionAnnotation] != "" || len(cached.Status.Conditions) != 0 {
		t.Errorf("the cached Deployment was modified: %+v", cached.ObjectMeta)
	}
}

// Upstream: TestSyncDeploymentDontDoAnythingDuringDeletion.
func TestReconcileDeletingDeploymentOnlyWritesStatus(t *testing.T) {
	g := newSyncRig(t)
	d := newDeployment("foo", 1)
	d.DeletionTimestamp = ptr.To(metav1.NewTime(testEpoch))
	d.Finalizers = []string{"foregroundDeletion"}
	g.add(d)

	g.mustReconcile(d)

	assertWrites(t, g.writes(), "update deployments/status foo")
	assertEvents(t, g.events())
}

// Upstream: TestDontSyncDeploymentsWithEmptyPodSelector.
func TestReconcileSelectingAll(t *testing.T) {
	for _, stale := range []bool{false, true} {
		t.Run(fmt.Sprintf("stale observedGeneration=%v", stale), func(t *testing.T) {
			g := newSyncRig(t)
			d := newDeployment("foo", 1)
			d.Spec.Selector = &metav1.LabelSelector{}
			d.Status.ObservedGeneration = d.Generation
			if stale {
				d.Status.ObservedGeneration = d.Generation - 1
			}
			g.add(d, newReplicaSet(newDeployment("foo", 1), "abc", 1, 0))

			g.mustReconcile(d)

			want := []string{}
			if stale {
				want = append(want, "update deployments/status foo")
			}
			assertWrites(t, g.writes(), want...)
			assertEvents(t, g.events(), "Warning SelectingAll This deployment is selecting all pods. A non-empty selector is required.")
		})
	}
}

// A nil selector is not "{}": it selects nothing, so the Deployment releases
// what it owns instead of warning.
func TestReconcileNilSelectorReleasesAndStops(t *testing.T) {
	g := newSyncRig(t)
	d := newDeployment("foo", 1)
	rs := newReplicaSet(d, "abc", 1, 0)
	d.Spec.Selector = nil
	g.add(d, rs)

	_, err := g.reconcile(d)
	if err == nil || !strings.Contains(err.Error(), "no selector") {
		t.Fatalf("Reconcile error = %v; want one about the missing selector", err)
	}
	assertWrites(t, g.writes(), "patch replicasets foo-abc")
	assertEvents(t, g.events())
}

func TestReconcileInvalidSelector(t *testing.T) {
	g := newSyncRig(t)
	d := newDeployment("foo", 1)
	d.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: "Sideways"}}
	g.add(d)

	_, err := g.reconcile(d)
	if err == nil || !strings.Contains(err.Error(), "invalid label selector") {
		t.Fatalf("Reconcile error = %v; want an invalid selector error", err)
	}
	assertWrites(t, g.writes())
}

func TestReconcileUnknownStrategy(t *testing.T) {
	g := newSyncRig(t)
	d := newDeployment("foo", 1)
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: "Teleport"}
	g.add(d)

	_, err := g.reconcile(d)
	if err == nil || !strings.Contains(err.Error(), "unexpected deployment strategy type: Teleport") {
		t.Fatalf("Reconcile error = %v", err)
	}
	if controller.IsTerminal(err) {
		t.Error("upstream retries this error; it must not be terminal")
	}
}

func TestReconcileTerminatingNamespaceIsTerminalAndQuiet(t *testing.T) {
	g := newSyncRig(t)
	d := newDeployment("foo", 1)
	g.add(d)
	terminating := apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "replicasets"}, "foo-x",
		fmt.Errorf("unable to create new content in namespace default because it is being terminated"))
	terminating.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: corev1.NamespaceTerminatingCause, Message: "default"}}
	g.failOn("create", "replicasets", terminating)

	_, err := g.reconcile(d)
	if !controller.IsTerminal(err) || !apierrors.IsForbidden(err) {
		t.Fatalf("Reconcile error = %v; want the terminal Forbidden error", err)
	}
	name := "foo-" + PodTemplateHash(&d.Spec.Template, nil)
	assertWrites(t, g.writes(), "create replicasets "+name)
	assertEvents(t, g.events())
}

// The order of decisions: paused, then rollback, then scaling event, then the
// rollout itself.
func TestReconcileDecisionOrder(t *testing.T) {
	// v1 ran 4 replicas; the Deployment now asks for 6 and a new template.
	base := func() (*appsv1.Deployment, *appsv1.ReplicaSet, *appsv1.ReplicaSet) {
		d := newDeployment("foo", 4)
		d.Spec.ProgressDeadlineSeconds = nil
		old1 := withRevision(newReplicaSet(d, "v1", 2, 0), "1")
		withTemplateImage(d, "registry.example/app:v2")
		old2 := withRevision(newReplicaSet(d, "v2", 2, time.Minute), "2")
		setReplicasAnnotations(old1, 4, 5)
		setReplicasAnnotations(old2, 4, 5)
		withTemplateImage(d, "registry.example/app:v3")
		return d, old1, old2
	}
	tests := []struct {
		name       string
		edit       func(d *appsv1.Deployment)
		wantWrites func(newName string) []string
	}{
		{
			name: "paused beats rollback and scaling: proportional sync, annotation kept",
			edit: func(d *appsv1.Deployment) {
				d.Spec.Paused = true
				d.Spec.Replicas = ptr.To[int32](6)
				d.Annotations = map[string]string{appsv1.DeprecatedRollbackTo: "1"}
			},
			wantWrites: func(string) []string {
				return []string{"update replicasets foo-v2", "update replicasets foo-v1", "update deployments/status foo"}
			},
		},
		{
			name: "rollback beats scaling: only the rollback's spec update",
			edit: func(d *appsv1.Deployment) {
				d.Spec.Replicas = ptr.To[int32](6)
				d.Annotations = map[string]string{appsv1.DeprecatedRollbackTo: "1"}
			},
			wantWrites: func(newName string) []string {
				// The rollback first finds or creates the new ReplicaSet.
				return []string{"create replicasets " + newName, "update deployments/status foo", "update deployments foo"}
			},
		},
		{
			name: "scaling beats rollout: no new ReplicaSet",
			edit: func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](6) },
			wantWrites: func(string) []string {
				return []string{"update replicasets foo-v2", "update replicasets foo-v1", "update deployments/status foo"}
			},
		},
		{
			name: "a non-integer rollback annotation is ignored and kept",
			edit: func(d *appsv1.Deployment) {
				d.Spec.Replicas = ptr.To[int32](6)
				d.Annotations = map[string]string{appsv1.DeprecatedRollbackTo: "yesterday"}
			},
			wantWrites: func(string) []string {
				return []string{"update replicasets foo-v2", "update replicasets foo-v1", "update deployments/status foo"}
			},
		},
		{
			name: "otherwise the rollout: new ReplicaSet, unhealthy old replica removed",
			edit: func(*appsv1.Deployment) {},
			wantWrites: func(newName string) []string {
				// 4 replicas, surge 1, unavailable 1: the new ReplicaSet starts
				// at 1, and one of the old pods (none available) can go.
				return []string{"create replicasets " + newName, "update deployments/status foo",
					"update replicasets foo-v1", "update deployments/status foo"}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newSyncRig(t)
			d, old1, old2 := base()
			tt.edit(d)
			g.add(d, old1, old2)

			g.mustReconcile(d)

			newName := "foo-" + PodTemplateHash(&d.Spec.Template, nil)
			assertWrites(t, g.writes(), tt.wantWrites(newName)...)
			if last := g.lastDeploymentWrite(); last != nil {
				_, pending := getRollbackTo(last)
				if d.Spec.Paused && !pending {
					t.Error("a paused Deployment lost its rollback request")
				}
			}
		})
	}
}

// Pausing is recorded with its own status write before the paused sync.
func TestReconcilePauseConditionWrittenFirst(t *testing.T) {
	g := newSyncRig(t)
	d := newDeployment("foo", 3)
	d.Spec.Paused = true
	rs := withStatus(newReplicaSet(d, "v1", 2, 0), 2, 2, 2)
	g.add(d, rs)

	g.mustReconcile(d)

	// Pause condition, then the new ReplicaSet's annotations (revision), its
	// size, and the status.
	assertWrites(t, g.writes(), "update deployments/status foo", "update replicasets foo-v1",
		"update replicasets foo-v1", "update deployments/status foo")
	assertEvents(t, g.events(), "Normal ScalingReplicaSet Scaled up replica set foo-v1 from 2 to 3")
	var first *appsv1.Deployment
	for _, a := range g.client.Actions() {
		if u, ok := a.(clienttesting.UpdateAction); ok {
			first, _ = u.GetObject().(*appsv1.Deployment)
			break
		}
	}
	cond := GetCondition(first.Status, appsv1.DeploymentProgressing)
	if cond == nil || cond.Reason != ReasonDeploymentPaused || cond.Status != corev1.ConditionUnknown {
		t.Errorf("first write's Progressing = %+v; want Unknown/%s", cond, ReasonDeploymentPaused)
	}
}

// settle plays the ReplicaSet controller, with every pod available at once,
// then refills the caches from the API server, so that the next Reconcile
// sees the world its writes made.
func (g *syncRig) settle() {
	g.t.Helper()
	ctx := g.ctx()
	rss, err := g.client.AppsV1().ReplicaSets(testNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		g.t.Fatal(err)
	}
	var cachedRSs []any
	for i := range rss.Items {
		rs := &rss.Items[i]
		n := ptr.Deref(rs.Spec.Replicas, 1)
		rs.Status = appsv1.ReplicaSetStatus{
			Replicas: n, FullyLabeledReplicas: n, ReadyReplicas: n, AvailableReplicas: n,
			ObservedGeneration: rs.Generation, TerminatingReplicas: ptr.To[int32](0),
		}
		if _, err := g.client.AppsV1().ReplicaSets(testNamespace).UpdateStatus(ctx, rs, metav1.UpdateOptions{}); err != nil {
			g.t.Fatal(err)
		}
		cachedRSs = append(cachedRSs, rs.DeepCopy())
	}
	if err := g.replicaSets.Replace(cachedRSs, ""); err != nil {
		g.t.Fatal(err)
	}
	ds, err := g.client.AppsV1().Deployments(testNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		g.t.Fatal(err)
	}
	var cachedDs []any
	for i := range ds.Items {
		cachedDs = append(cachedDs, ds.Items[i].DeepCopy())
	}
	if err := g.deployments.Replace(cachedDs, ""); err != nil {
		g.t.Fatal(err)
	}
	g.client.ClearActions()
}

// Specs the API server rejects today can still be stored by older servers or
// written straight to etcd. Each gets an error or a decision, never a panic,
// and one bad Deployment never affects another key.
func TestReconcileHostileSpecs(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(d *appsv1.Deployment)
		wantErr bool
	}{
		{"maxSurge and maxUnavailable both 0", func(d *appsv1.Deployment) { withRolling(d, intOrStr(0), intOrStr(0)) }, false},
		{"percentages over 100", func(d *appsv1.Deployment) { withRolling(d, intOrStr("300%"), intOrStr("250%")) }, false},
		// Upstream resolves negative values (surge -2, unavailable -1 here) and goes on.
		{"negative percentages", func(d *appsv1.Deployment) { withRolling(d, intOrStr("-50%"), intOrStr("-10%")) }, false},
		{"not a percentage", func(d *appsv1.Deployment) { withRolling(d, intOrStr("lots"), intOrStr(1)) }, true},
		{"nil maxSurge", func(d *appsv1.Deployment) { withRolling(d, nil, intOrStr(1)) }, true},
		{"rollingUpdate missing", func(d *appsv1.Deployment) { d.Spec.Strategy.RollingUpdate = nil }, true},
		{"replicas at MaxInt32", func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](1<<31 - 1) }, false},
		{"negative replicas", func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](-3) }, false},
		{"replicas unset", func(d *appsv1.Deployment) { d.Spec.Replicas = nil }, false},
		{"negative history limit", func(d *appsv1.Deployment) { d.Spec.RevisionHistoryLimit = ptr.To[int32](-1) }, false},
		{"negative progress deadline", func(d *appsv1.Deployment) { d.Spec.ProgressDeadlineSeconds = ptr.To[int32](-5) }, false},
		{"huge rollback revision", func(d *appsv1.Deployment) {
			d.Annotations = map[string]string{appsv1.DeprecatedRollbackTo: "9223372036854775807"}
		}, false},
		{"selector not matching the template", func(d *appsv1.Deployment) { d.Spec.Template.Labels = map[string]string{"app": "else"} }, false},
		{"recreate with everything odd", func(d *appsv1.Deployment) {
			withRecreate(d)
			d.Spec.Replicas = ptr.To[int32](-1)
			d.Spec.RevisionHistoryLimit = ptr.To[int32](-9)
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newSyncRig(t)
			good := newDeployment("good", 2)
			bad := newDeployment("bad", 4)
			// An existing rollout in flight, with odd history, for the bad one.
			old := withStatus(withRevision(newReplicaSet(bad, "old", 3, -time.Hour), "1"), 3, 3, 3)
			setReplicasAnnotations(old, 4, 5)
			withTemplateImage(bad, "registry.example/app:v2")
			cur := withStatus(withRevision(newReplicaSet(bad, "cur", 2, 0), "2"), 2, 1, 1)
			setReplicasAnnotations(cur, 4, 5)
			spare := withStatus(withRevision(newReplicaSet(withTemplateImage(bad.DeepCopy(), "img:zero"), "zero", 0, -2*time.Hour), "0"), 0, 0, 0)
			tt.edit(bad)
			g.add(good, bad, old, cur, spare)

			for pass := 0; pass < 3; pass++ {
				_, err := g.reconcile(bad)
				if tt.wantErr && err == nil {
					t.Fatalf("pass %d: want an error", pass)
				}
				if !tt.wantErr && err != nil && !apierrors.IsAlreadyExists(err) && !apierrors.IsNotFound(err) {
					t.Fatalf("pass %d: %v", pass, err)
				}
				g.settle()
				if obj, _, _ := g.deployments.GetByKey("default/bad"); obj != nil {
					bad = obj.(*appsv1.Deployment)
				}
			}
			g.client.ClearActions()
			g.mustReconcile(good)
			if w := g.writes(); len(w) == 0 || !strings.HasPrefix(w[0], "create replicasets good-") {
				t.Errorf("the good Deployment's pass: %q", w)
			}
		})
	}
}

// BenchmarkReconcileSteadyState measures a pass over a Deployment with
// nothing to do, in a namespace crowded with other Deployments and pods: the
// pass reads only its own ReplicaSets and, for Recreate, its own pods
// through the index.
func BenchmarkReconcileSteadyState(b *testing.B) {
	for _, strategy := range []string{"RollingUpdate", "Recreate"} {
		b.Run(strategy, func(b *testing.B) {
			g := newSyncRig(b)
			var target *appsv1.Deployment
			for i := 0; i < 100; i++ {
				d := newDeployment(fmt.Sprintf("d%03d", i), 10)
				if strategy == "Recreate" {
					withRecreate(d)
				}
				rs := withStatus(newReplicaSet(d, "h", 10, 0), 10, 10, 10)
				g.add(d, rs)
				for p := 0; p < 10; p++ {
					g.addCached(newPod(rs, fmt.Sprintf("%s-%d", rs.Name, p), corev1.PodRunning))
				}
				if i == 50 {
					target = d
				}
			}
			// Let the target settle: revision, conditions, status.
			for pass := 0; pass < 5; pass++ {
				g.client.ClearActions()
				if _, err := g.reconcile(target); err != nil {
					b.Fatal(err)
				}
				if len(g.writes()) == 0 {
					break
				}
				g.settle()
				obj, _, _ := g.deployments.GetByKey("default/" + target.Name)
				target = obj.(*appsv1.Deployment)
			}
			g.client.ClearActions()
			ctx := context.Background()
			key := "default/" + target.Name
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := g.r.Reconcile(ctx, key); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if w := g.writes(); len(w) != 0 {
				b.Fatalf("steady state wrote %q", w)
			}
		})
	}
}
