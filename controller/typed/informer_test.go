package typed_test

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/controller/typed"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

func TestInformerAndLister(t *testing.T) {
	c, _ := newWidgetClient(t)
	ctx, cancel := context.WithCancel(context.Background())
	for _, w := range []*Widget{widget("shop", "a", "red"), widget("other", "b", "green")} {
		if _, err := c.Namespace(w.Namespace).Create(ctx, w, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	inf := typed.NewInformer(c, typed.InformerOptions{})
	added := make(chan *Widget, 10)
	if _, err := inf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { added <- obj.(*Widget) },
	}); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); inf.Informer().RunWithContext(ctx) }()
	defer func() { cancel(); <-done }()
	if !cache.WaitForCacheSync(ctx.Done(), inf.Informer().HasSynced) {
		t.Fatal("informer did not sync")
	}

	all, err := inf.Lister().List(labels.Everything())
	if err != nil || len(all) != 2 {
		t.Errorf("Lister().List = %v, %v; want both widgets", itemNames(all), err)
	}
	a, err := inf.Lister().Namespace("shop").Get("a")
	if err != nil || a.Spec.Color != "red" {
		t.Errorf("Namespace(shop).Get(a) = %+v, %v", a, err)
	}
	if _, err := inf.Lister().Namespace("shop").Get("b"); !apierrors.IsNotFound(err) {
		t.Errorf("Get of a widget in another namespace: %v, want NotFound", err)
	}
	inShop, err := inf.Informer().GetIndexer().ByIndex(cache.NamespaceIndex, "shop")
	if err != nil || len(inShop) != 1 {
		t.Errorf("namespace index: %v, %v", inShop, err)
	}

	if _, err := c.Namespace("shop").Create(ctx, widget("shop", "c", "blue"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for len(seen) < 3 {
		w := <-added
		seen[w.Name] = true
	}
	testutil.Eventually(t, 30*time.Second, "the lister to serve the new widget", testutil.True(func() bool {
		_, err := inf.Lister().Namespace("shop").Get("c")
		return err == nil
	}))
}

// An informer from NewSharedInformer lives in a client-go factory: the
// factory starts it, waits for it and shuts it down with its own.
func TestNewSharedInformerJoinsTheFactory(t *testing.T) {
	c, _ := newWidgetClient(t)
	if _, err := c.Namespace("shop").Create(context.Background(), widget("shop", "a", "red"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	first := typed.NewSharedInformer(factory, c, typed.InformerOptions{Namespace: "shop"})
	second := typed.NewSharedInformer(factory, c, typed.InformerOptions{})
	if first.Informer() != second.Informer() {
		t.Error("two NewSharedInformer calls for one type made two informers")
	}
	stop := make(chan struct{})
	factory.Start(stop)
	synced := factory.WaitForCacheSync(stop)
	close(stop)
	factory.Shutdown()
	if len(synced) != 1 || !synced[typeOf(&Widget{})] {
		t.Errorf("factory synced %v, want the widget informer", synced)
	}
	if _, err := first.Lister().Namespace("shop").Get("a"); err != nil {
		t.Errorf("lister after sync: %v", err)
	}
}

// A factory scoped to a namespace and a label selector scopes T's
// informer too, as it scopes its generated informers.
func TestNewSharedInformerHonoursTheFactoryScope(t *testing.T) {
	c, server := newWidgetClient(t)
	for _, w := range []*Widget{widget("team-a", "a", "red"), widget("team-b", "b", "green")} {
		if _, err := c.Namespace(w.Namespace).Create(context.Background(), w, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	factory := informers.NewSharedInformerFactoryWithOptions(fake.NewClientset(), 0,
		informers.WithNamespace("team-a"),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = "tier=web" }))
	inf := typed.NewSharedInformer(factory, c, typed.InformerOptions{
		TweakListOptions: func(o *metav1.ListOptions) { o.FieldSelector = "metadata.name!=z" },
	})
	stop := make(chan struct{})
	factory.Start(stop)
	factory.WaitForCacheSync(stop)
	close(stop)
	factory.Shutdown()

	all, err := inf.Lister().List(labels.Everything())
	if err != nil || len(all) != 1 || all[0].Namespace != "team-a" {
		t.Errorf("Lister().List = %v, %v; want only team-a's widget", itemNames(all), err)
	}
	server.mu.Lock()
	defer server.mu.Unlock()
	var lists int
	for _, r := range append(server.watches, server.requests...) {
		if r.Method != "GET" {
			continue
		}
		lists++
		if r.Path != "/apis/example.ctrlkit.dev/v1/namespaces/team-a/widgets" {
			t.Errorf("informer requested %s, want team-a's widgets", r.Path)
		}
		if got := r.Query["labelSelector"]; len(got) != 1 || got[0] != "tier=web" {
			t.Errorf("labelSelector = %q, want the factory's tier=web", got)
		}
		if got := r.Query["fieldSelector"]; len(got) != 1 || got[0] != "metadata.name!=z" {
			t.Errorf("fieldSelector = %q, want the options' tweak too", got)
		}
	}
	if lists == 0 {
		t.Error("the informer sent no list or watch")
	}
}
