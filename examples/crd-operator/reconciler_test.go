package main

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/controllertest"
	"github.com/ctrlkit/ctrlkit/controller/typed"
	v1 "github.com/ctrlkit/ctrlkit/examples/crd-operator/api/v1"
	"github.com/ctrlkit/ctrlkit/examples/crd-operator/convert"
)

// env is a reconciler on fake clients: controllertest's fake clientset for
// the built-in kinds and its fake typed client for WebApps, both with the
// API server's write semantics. Its caches are refreshed from the fakes
// before each reconcile, as if the informers had caught up.
type env struct {
	t        *testing.T
	kube     *fake.Clientset
	webApps  *controllertest.TypedClient[*v1.WebApp]
	recorder *events.FakeRecorder
	r        *reconciler
	caches   map[string]cache.Indexer
}

func newEnv(t *testing.T, apps []*v1.WebApp, objects ...runtime.Object) *env {
	webApps, err := controllertest.NewTypedClient(v1.Resource, apps...)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, kube: controllertest.NewClientset(objects...), webApps: webApps,
		recorder: events.NewFakeRecorder(10), caches: map[string]cache.Indexer{}}
	for _, name := range []string{"webapps", "deployments", "services"} {
		e.caches[name] = cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	}
	e.r = &reconciler{
		webApps:     typed.NewLister[*v1.WebApp](e.caches["webapps"], v1.Resource),
		webAppsIn:   func(namespace string) webAppClient { return webApps.Namespace(namespace) },
		kube:        e.kube,
		deployments: appslisters.NewDeploymentLister(e.caches["deployments"]),
		services:    corelisters.NewServiceLister(e.caches["services"]),
		registry:    "webapp-registry",
		recorder:    e.recorder,
	}
	return e
}

// reconcile refreshes the caches and reconciles key.
func (e *env) reconcile(key string) (controller.Result, error) {
	e.t.Helper()
	ctx := context.Background()
	apps, err := e.webApps.Tracker().List(v1.Resource.GroupVersionResource(), v1.Kind, "")
	if err != nil {
		e.t.Fatal(err)
	}
	deployments, _ := e.kube.AppsV1().Deployments("").List(ctx, metav1.ListOptions{})
	services, _ := e.kube.CoreV1().Services("").List(ctx, metav1.ListOptions{})
	replace := func(name string, objects []any) {
		if err := e.caches[name].Replace(objects, ""); err != nil {
			e.t.Fatal(err)
		}
	}
	var items []any
	for _, a := range apps.(*typed.List[*v1.WebApp]).Items {
		items = append(items, a)
	}
	replace("webapps", items)
	items = nil
	for i := range deployments.Items {
		items = append(items, &deployments.Items[i])
	}
	replace("deployments", items)
	items = nil
	for i := range services.Items {
		items = append(items, &services.Items[i])
	}
	replace("services", items)
	return e.r.Reconcile(ctx, key)
}

func (e *env) webApp(name string) *v1.WebApp {
	e.t.Helper()
	obj, err := e.webApps.Tracker().Get(v1.Resource.GroupVersionResource(), "shop", name)
	if err != nil {
		e.t.Fatal(err)
	}
	return obj.(*v1.WebApp)
}

// writes counts the requests other than reads made so far; the WebApp
// client only writes (its reads are the cache's).
func (e *env) writes() int {
	return len(e.kube.Actions()) - countReads(e.kube.Actions()) + len(e.webApps.Actions())
}

func countReads(actions []clienttesting.Action) int {
	n := 0
	for _, a := range actions {
		if v := a.GetVerb(); v == "get" || v == "list" || v == "watch" {
			n++
		}
	}
	return n
}

func webApp(name, image string) *v1.WebApp {
	return &v1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, UID: types.UID("uid-" + name), Generation: 1},
		Spec: v1.WebAppSpec{Image: convert.SplitImage(image), Replicas: ptr.To[int32](3), ContainerPort: 8080}}
}

func condition(app *v1.WebApp, t string) metav1.Condition {
	if c := meta.FindStatusCondition(app.Status.Conditions, t); c != nil {
		return *c
	}
	return metav1.Condition{}
}

// TestReconcileCreatesAndReports: a new WebApp gets its finalizer, a
// Deployment and Service it controls and a registry entry; its status
// follows the Deployment's; an unchanged WebApp writes nothing.
func TestReconcileCreatesAndReports(t *testing.T) {
	e := newEnv(t, []*v1.WebApp{webApp("web", "nginx:1.26")})
	if _, err := e.reconcile("shop/web"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	app := e.webApp("web")
	if app.Finalizers[0] != finalizer {
		t.Errorf("finalizers = %v", app.Finalizers)
	}
	d, err := e.kube.AppsV1().Deployments("shop").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := d.Spec.Template.Spec.Containers[0]
	if !metav1.IsControlledBy(d, app) || *d.Spec.Replicas != 3 || c.Image != "nginx:1.26" || c.Ports[0].ContainerPort != 8080 {
		t.Errorf("Deployment: controller %v, replicas %d, container %+v", metav1.GetControllerOf(d), *d.Spec.Replicas, c)
	}
	s, err := e.kube.CoreV1().Services("shop").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !metav1.IsControlledBy(s, app) || s.Spec.Selector["app.kubernetes.io/instance"] != "web" || s.Spec.Ports[0].TargetPort.StrVal != "http" {
		t.Errorf("Service: controller %v, spec %+v", metav1.GetControllerOf(s), s.Spec)
	}
	if cm, err := e.kube.CoreV1().ConfigMaps("webapp-registry").Get(ctx, "shop.web", metav1.GetOptions{}); err != nil || cm.Data["image"] != "nginx:1.26" {
		t.Errorf("registry entry: %v, %v", cm, err)
	}
	if a, p := condition(app, v1.Available), condition(app, v1.Progressing); a.Status != metav1.ConditionFalse ||
		p.Status != metav1.ConditionTrue || p.Reason != reasonRollingOut || app.Status.ObservedGeneration != 1 {
		t.Errorf("before the rollout: status %+v", app.Status)
	}

	// The Deployment controller finishes the rollout.
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 3, AvailableReplicas: 3,
		Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable"}}}
	if _, err := e.kube.AppsV1().Deployments("shop").UpdateStatus(ctx, d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.reconcile("shop/web"); err != nil {
		t.Fatal(err)
	}
	app = e.webApp("web")
	if a, p := condition(app, v1.Available), condition(app, v1.Progressing); a.Status != metav1.ConditionTrue ||
		p.Status != metav1.ConditionFalse || p.Reason != reasonRolloutComplete || app.Status.AvailableReplicas != 3 {
		t.Errorf("after the rollout: status %+v", app.Status)
	}

	before := e.writes()
	if _, err := e.reconcile("shop/web"); err != nil {
		t.Fatal(err)
	}
	if e.writes() != before {
		t.Errorf("an unchanged WebApp wrote: %v %v", e.kube.Actions()[len(e.kube.Actions())-1], e.webApps.Actions())
	}
}

// TestReconcileNameConflict: a Deployment of the WebApp's name that it
// does not control is left alone; the WebApp says why it is stuck, once,
// without a retry; another WebApp is unaffected.
func TestReconcileNameConflict(t *testing.T) {
	theirs := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "taken"}}
	e := newEnv(t, []*v1.WebApp{webApp("taken", "nginx"), webApp("other", "nginx")}, theirs)

	_, err := e.reconcile("shop/taken")
	if !controller.IsTerminal(err) {
		t.Errorf("Reconcile = %v, want a terminal error (no retry)", err)
	}
	app := e.webApp("taken")
	if p := condition(app, v1.Progressing); p.Status != metav1.ConditionFalse || p.Reason != reasonNameConflict || !strings.Contains(p.Message, "Deployment taken") {
		t.Errorf("Progressing = %+v", p)
	}
	select {
	case ev := <-e.recorder.Events:
		if !strings.HasPrefix(ev, "Warning NameConflict") {
			t.Errorf("event %q", ev)
		}
	default:
		t.Error("no event")
	}
	if d, _ := e.kube.AppsV1().Deployments("shop").Get(context.Background(), "taken", metav1.GetOptions{}); len(d.OwnerReferences) != 0 {
		t.Errorf("their Deployment was adopted: %v", d.OwnerReferences)
	}

	if _, err := e.reconcile("shop/other"); err != nil {
		t.Fatalf("the other WebApp: %v", err)
	}
	if _, err := e.kube.AppsV1().Deployments("shop").Get(context.Background(), "other", metav1.GetOptions{}); err != nil {
		t.Errorf("the other WebApp's Deployment: %v", err)
	}
}

// TestReconcileDeletion: a deleted WebApp's registry entry is deleted (or
// found gone) before its finalizer is removed.
func TestReconcileDeletion(t *testing.T) {
	for name, entry := range map[string][]runtime.Object{
		"entry exists": {&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "webapp-registry", Name: "shop.web"}}},
		"entry gone":   nil,
	} {
		t.Run(name, func(t *testing.T) {
			app := webApp("web", "nginx")
			app.Finalizers = []string{finalizer, "someone.else/keep"}
			app.DeletionTimestamp = &metav1.Time{}
			e := newEnv(t, []*v1.WebApp{app}, entry...)
			if _, err := e.reconcile("shop/web"); err != nil {
				t.Fatal(err)
			}
			if _, err := e.kube.CoreV1().ConfigMaps("webapp-registry").Get(context.Background(), "shop.web", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("registry entry: %v, want NotFound", err)
			}
			if got := e.webApp("web").Finalizers; len(got) != 1 || got[0] != "someone.else/keep" {
				t.Errorf("finalizers = %v, want only the other one", got)
			}
			if _, err := e.kube.AppsV1().Deployments("shop").Get(context.Background(), "web", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("a Deployment was created for a deleted WebApp: %v", err)
			}
		})
	}
}

// TestReconcileGone: a WebApp no longer in the cache needs nothing.
func TestReconcileGone(t *testing.T) {
	e := newEnv(t, nil)
	if _, err := e.reconcile("shop/web"); err != nil || e.writes() != 0 {
		t.Errorf("Reconcile = %v with %d writes, want nil and none", err, e.writes())
	}
}
