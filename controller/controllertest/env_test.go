package controllertest_test

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/controllertest"
	"github.com/ctrlkit/ctrlkit/handler"
)

// mirror copies each ConfigMap "x" to "x-copy" and rechecks every minute.
type mirror struct {
	client kubernetes.Interface
	lister corelisters.ConfigMapLister
}

func (m *mirror) Reconcile(ctx context.Context, key string) (controller.Result, error) {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return controller.Result{}, controller.TerminalError(err)
	}
	if len(name) > 5 && name[len(name)-5:] == "-copy" {
		return controller.Result{}, nil
	}
	src, err := m.lister.ConfigMaps(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	copied := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-copy"}, Data: src.Data}
	if _, err := m.lister.ConfigMaps(ns).Get(copied.Name); apierrors.IsNotFound(err) {
		_, err = m.client.CoreV1().ConfigMaps(ns).Create(ctx, copied, metav1.CreateOptions{})
		return controller.Result{RequeueAfter: time.Minute}, err
	}
	_, err = m.client.CoreV1().ConfigMaps(ns).Update(ctx, copied, metav1.UpdateOptions{})
	return controller.Result{RequeueAfter: time.Minute}, err
}

func TestEnvRunsAControllerToIdleAndThroughTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env := controllertest.New(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}})
		configMaps := env.Informers.Core().V1().ConfigMaps()
		r := &controllertest.Recorder[string]{Reconciler: &mirror{client: env.Client, lister: configMaps.Lister()}}
		c, err := controller.New("mirror", controller.Reconciler[string](r), controller.Options[string]{})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Watch(configMaps.Informer(), handler.ForObject(handler.ObjectKey)); err != nil {
			t.Fatal(err)
		}
		env.Start(c)

		// Start settles: a reconciled, its copy created, and the copy's own
		// event reconciled too.
		if got, want := r.Keys(), []string{"ns/a", "ns/a-copy"}; !slices.Equal(got, want) {
			t.Fatalf("reconciled %v, want %v", got, want)
		}
		writes := env.WriteActions()
		if len(writes) != 1 || writes[0].GetVerb() != "create" {
			t.Fatalf("writes %v, want one create", writes)
		}

		env.ClearActions()
		r.Reset()
		before := env.Clock.Now()
		env.Advance(time.Minute - time.Second)
		if got := r.Keys(); len(got) != 0 {
			t.Fatalf("reconciled %v before the RequeueAfter", got)
		}
		env.Advance(time.Second)
		if moved := env.Clock.Since(before); moved != time.Minute {
			t.Errorf("Advance moved env.Clock by %v, want a minute", moved)
		}
		if got, want := r.Keys(), []string{"ns/a", "ns/a-copy"}; !slices.Equal(got, want) {
			t.Fatalf("after a minute reconciled %v, want %v (requeue, then the copy's update event)", got, want)
		}
		writes = env.WriteActions()
		if len(writes) != 1 || writes[0].GetVerb() != "update" {
			t.Fatalf("writes %v, want one update", writes)
		}
		if len(env.Actions()) != 1 {
			t.Errorf("Actions after ClearActions = %v, want just the update", env.Actions())
		}
	})
}

func TestRecorderWithoutReconcilerSucceeds(t *testing.T) {
	r := &controllertest.Recorder[int]{}
	res, err := r.Reconcile(context.Background(), 7)
	if err != nil || !res.IsZero() {
		t.Fatalf("Reconcile = %v, %v; want success", res, err)
	}
	if calls := r.Calls(); len(calls) != 1 || calls[0].Key != 7 {
		t.Fatalf("Calls = %v", calls)
	}
}

func TestUpdatesGetNewResourceVersions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env := controllertest.New(t)
		ctx := env.Context()
		cms := env.Client.CoreV1().ConfigMaps("ns")
		created, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		updated, err := cms.Update(ctx, created.DeepCopy(), metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if created.ResourceVersion == "" || updated.ResourceVersion == created.ResourceVersion {
			t.Errorf("resourceVersions %q then %q, want two distinct ones", created.ResourceVersion, updated.ResourceVersion)
		}
	})
}
