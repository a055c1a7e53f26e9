package builder_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/go-logr/logr/funcr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/builder"
	"github.com/ctrlkit/ctrlkit/controller/controllertest"
	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/handler"
)

var (
	deploymentGK = schema.GroupKind{Group: "apps", Kind: "Deployment"}
	nodeGK       = schema.GroupKind{Kind: "Node"}
)

func controlledBy(kind schema.GroupVersionKind, name string, uid types.UID) []metav1.OwnerReference {
	return []metav1.OwnerReference{*metav1.NewControllerRef(&metav1.ObjectMeta{Name: name, UID: uid}, kind)}
}

func replicaSet(name, owner string, uid types.UID) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name,
		OwnerReferences: controlledBy(appsv1.SchemeGroupVersion.WithKind("Deployment"), owner, uid)}}
}

// keysAfter returns the keys reconciled since the recorder was last reset.
func keysAfter(r *controllertest.Recorder[string]) []string {
	keys := r.Keys()
	r.Reset()
	slices.Sort(keys)
	return slices.Compact(keys)
}

func TestOwnsMapsToTheNamespacedOwner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env := controllertest.New(t, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "web-uid"}})
		rec := &controllertest.Recorder[string]{}
		c, err := builder.ControllerManagedBy(nil, "deployments", handler.ObjectKey).
			For(env.Informers.Apps().V1().Deployments().Informer(), deploymentGK, meta.RESTScopeNamespace).
			Owns(env.Informers.Apps().V1().ReplicaSets().Informer()).
			Build(rec)
		if err != nil {
			t.Fatal(err)
		}
		env.Start(c)
		if got := keysAfter(rec); !slices.Equal(got, []string{"ns/web"}) {
			t.Errorf("initial reconciles %v, want ns/web", got)
		}
		rss := env.Client.AppsV1().ReplicaSets("ns")
		for _, rs := range []*appsv1.ReplicaSet{
			replicaSet("web-1", "web", "web-uid"),
			replicaSet("stale", "web", "old-uid"), // left over from an older "web"
			replicaSet("orphan", "gone", "x"),
		} {
			if _, err := rss.Create(env.Context(), rs, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		env.Settle()
		if got := keysAfter(rec); !slices.Equal(got, []string{"ns/web"}) {
			t.Errorf("after ReplicaSet events: %v, want only ns/web (its own ReplicaSet)", got)
		}
	})
}

// A cluster-scoped owner: Nodes own their mirror Pods, in any namespace.
func TestOwnsMapsToAClusterScopedOwner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env := controllertest.New(t, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1", UID: "n1"}})
		rec := &controllertest.Recorder[string]{}
		c, err := builder.ControllerManagedBy(nil, "nodes", handler.ObjectKey).
			For(env.Informers.Core().V1().Nodes().Informer(), nodeGK, meta.RESTScopeRoot).
			Owns(env.Informers.Core().V1().Pods().Informer()).
			Build(rec)
		if err != nil {
			t.Fatal(err)
		}
		env.Start(c)
		rec.Reset()
		mirror := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "etcd-node-1",
			OwnerReferences: controlledBy(corev1.SchemeGroupVersion.WithKind("Node"), "node-1", "n1")}}
		if _, err := env.Client.CoreV1().Pods("kube-system").Create(env.Context(), mirror, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		env.Settle()
		if got := keysAfter(rec); !slices.Equal(got, []string{"node-1"}) {
			t.Errorf("after the mirror Pod's create: %v, want node-1", got)
		}
	})
}

func TestPredicatesAndWatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env := controllertest.New(t)
		rec := &controllertest.Recorder[types.NamespacedName]{}
		labelled := handler.PredicateFunc(func(e handler.Event) bool { return e.Object.GetLabels()["watched"] == "yes" })
		notInitial := handler.PredicateFunc(func(e handler.Event) bool { return !e.InInitialList })
		c, err := builder.ControllerManagedBy(nil, "filtered", handler.ObjectNamespacedName).
			For(env.Informers.Apps().V1().Deployments().Informer(), deploymentGK, meta.RESTScopeNamespace, labelled).
			Watches(env.Informers.Core().V1().ConfigMaps().Informer(), handler.Map(func(o metav1.Object) []types.NamespacedName {
				return []types.NamespacedName{{Namespace: o.GetNamespace(), Name: strings.TrimSuffix(o.GetName(), "-config")}}
			})).
			WithEventFilter(notInitial).
			Build(rec)
		if err != nil {
			t.Fatal(err)
		}
		env.Start(c)
		ctx := env.Context()
		for _, d := range []*appsv1.Deployment{
			{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "in", Labels: map[string]string{"watched": "yes"}}},
			{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "out"}},
		} {
			if _, err := env.Client.AppsV1().Deployments("ns").Create(ctx, d, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := env.Client.CoreV1().ConfigMaps("ns").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "db-config"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		env.Settle()
		got := rec.Keys()
		want := []types.NamespacedName{{Namespace: "ns", Name: "in"}, {Namespace: "ns", Name: "db"}}
		if !slices.Equal(got, want) {
			t.Errorf("reconciled %v, want %v (the labelled Deployment, the ConfigMap's mapping)", got, want)
		}
	})
}

func TestBuildReportsMistakes(t *testing.T) {
	factory := informers.NewSharedInformerFactory(nil, 0)
	deployments := factory.Apps().V1().Deployments().Informer()
	r := controller.ReconcilerFunc[string](func(context.Context, string) (controller.Result, error) { return controller.Result{}, nil })
	for _, tc := range []struct {
		name string
		b    *builder.Builder[string]
		want string
	}{
		{"no For", builder.ControllerManagedBy(nil, "c", handler.ObjectKey).Owns(deployments), "For was not called"},
		{"For twice", builder.ControllerManagedBy(nil, "c", handler.ObjectKey).
			For(deployments, deploymentGK, meta.RESTScopeNamespace).For(deployments, deploymentGK, meta.RESTScopeNamespace), "For called twice"},
		{"no scope", builder.ControllerManagedBy(nil, "c", handler.ObjectKey).For(deployments, deploymentGK, nil), "scope must be"},
		{"nil informer", builder.ControllerManagedBy(nil, "c", handler.ObjectKey).
			For(deployments, deploymentGK, meta.RESTScopeNamespace).Owns(nil), "Owns #1: informer must not be nil"},
		{"no key", builder.ControllerManagedBy[string](nil, "c", nil).For(deployments, deploymentGK, meta.RESTScopeNamespace), "key must not be nil"},
	} {
		if _, err := tc.b.Build(r); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
	b := builder.ControllerManagedBy(nil, "c", handler.ObjectKey).For(deployments, deploymentGK, meta.RESTScopeNamespace)
	if _, err := b.Build(r); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Build(r); err == nil {
		t.Error("second Build succeeded, want an error")
	}
	if _, err := builder.ControllerManagedBy(nil, "c", handler.ObjectKey).For(deployments, deploymentGK, meta.RESTScopeNamespace).Complete(r); err == nil {
		t.Error("Complete without a manager succeeded, want an error")
	}
}

var quiet = funcr.New(func(string, string) {}, funcr.Options{})

// Under a manager, the controller's informers start with the factory the
// manager runs; without that factory, the manager fails, naming the
// informers, once the cache sync timeout passes (virtual time here).
func TestCompleteUnderAManager(t *testing.T) {
	for _, addFactory := range []bool{true, false} {
		synctest.Test(t, func(t *testing.T) {
			client := controllertest.NewClientset(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"}})
			factory := informers.NewSharedInformerFactory(client, 0)
			mgr, err := manager.New(manager.Options{Logger: quiet})
			if err != nil {
				t.Fatal(err)
			}
			if addFactory {
				if err := mgr.AddInformerFactory(manager.Factory(factory)); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			reconciled := make(chan string, 1)
			_, err = builder.ControllerManagedBy(mgr, "deployments", handler.ObjectKey).
				For(factory.Apps().V1().Deployments().Informer(), deploymentGK, meta.RESTScopeNamespace).
				Owns(factory.Apps().V1().ReplicaSets().Informer()).
				Complete(controller.ReconcilerFunc[string](func(_ context.Context, key string) (controller.Result, error) {
					reconciled <- key
					cancel()
					return controller.Result{}, nil
				}))
			if err != nil {
				t.Fatal(err)
			}
			err = mgr.Run(ctx)
			if addFactory {
				if err != nil || len(reconciled) != 1 {
					t.Errorf("with the factory: Run = %v, %d reconciles; want ns/web reconciled", err, len(reconciled))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "*v1.Deployment") || !strings.Contains(err.Error(), "*v1.ReplicaSet") {
				t.Errorf("without the factory: Run = %v, want an error naming both informers", err)
			}
			if len(reconciled) != 0 {
				t.Error("reconciled without started informers")
			}
		})
	}
}
