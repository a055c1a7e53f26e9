package configrollout

import (
	"context"
	"errors"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller"
)

// fixture is a Reconciler on a fake clientset whose listers read indexers
// the test fills directly, as synced informers would be.
type fixture struct {
	client   *fake.Clientset
	recorder *record.FakeRecorder
	r        *Reconciler
}

func newFixture(t *testing.T, objects ...runtime.Object) *fixture {
	t.Helper()
	deployments := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	configMaps := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	secrets := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, o := range objects {
		var err error
		switch o.(type) {
		case *appsv1.Deployment:
			err = deployments.Add(o)
		case *corev1.ConfigMap:
			err = configMaps.Add(o)
		case *corev1.Secret:
			err = secrets.Add(o)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	f := &fixture{client: fake.NewClientset(objects...), recorder: record.NewFakeRecorder(10)}
	r, err := NewReconciler(Config{
		Client:      f.client,
		Deployments: appslisters.NewDeploymentLister(deployments),
		ConfigMaps:  corelisters.NewConfigMapLister(configMaps),
		Secrets:     corelisters.NewSecretLister(secrets),
		Recorder:    f.recorder,
	})
	if err != nil {
		t.Fatal(err)
	}
	f.r = r
	f.client.ClearActions()
	return f
}

func (f *fixture) reconcile(t *testing.T, key string) {
	t.Helper()
	res, err := f.r.Reconcile(context.Background(), key)
	if err != nil || !res.IsZero() {
		t.Fatalf("Reconcile(%q) = %+v, %v; want a zero result and no error", key, res, err)
	}
}

func (f *fixture) live(t *testing.T, namespace, name string) *appsv1.Deployment {
	t.Helper()
	d, err := f.client.AppsV1().Deployments(namespace).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (f *fixture) writes() []k8stesting.Action {
	var writes []k8stesting.Action
	for _, a := range f.client.Actions() {
		if a.GetVerb() != "get" && a.GetVerb() != "list" && a.GetVerb() != "watch" {
			writes = append(writes, a)
		}
	}
	return writes
}

// events drains the recorded events.
func (f *fixture) events() []string {
	var events []string
	for {
		select {
		case e := <-f.recorder.Events:
			events = append(events, e)
		default:
			return events
		}
	}
}

func appDeployment(annotations map[string]string, templateAnnotations map[string]string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "app", Annotations: annotations, ResourceVersion: "1"},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Annotations: templateAnnotations},
			Spec: corev1.PodSpec{
				Containers: []corev1.Container{{
					Name:    "app",
					EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "db"}}}},
				}},
				Volumes: []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: "app-config"}}}}},
			},
		}},
	}
}

func appConfig(value string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "app-config"}, Data: map[string]string{"config.yaml": value}}
}

func dbSecret() *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "db"}, Data: map[string][]byte{"PASSWORD": []byte("s3cret")}}
}

func hashOf(cm *corev1.ConfigMap, s *corev1.Secret) string {
	return Hash([]Content{
		{Ref: Ref{Kind: KindConfigMap, Name: cm.Name}, Found: true, Data: configMapData(cm)},
		{Ref: Ref{Kind: KindSecret, Name: s.Name}, Found: true, Data: s.Data},
	})
}

var enabled = map[string]string{EnabledAnnotation: "true"}

func TestReconcileAdoptsWithoutRollout(t *testing.T) {
	cm, s := appConfig("v1"), dbSecret()
	f := newFixture(t, appDeployment(enabled, nil), cm, s)
	f.reconcile(t, "ns/app")

	d := f.live(t, "ns", "app")
	if got, want := d.Annotations[ObservedHashAnnotation], hashOf(cm, s); got != want {
		t.Errorf("observed hash = %q, want %q", got, want)
	}
	if _, ok := d.Spec.Template.Annotations[HashAnnotation]; ok {
		t.Error("adoption stamped the pod template: the pods would restart")
	}
	if events := f.events(); len(events) != 1 || !strings.HasPrefix(events[0], "Normal ConfigTracked Tracking configmap/app-config, secret/db") {
		t.Errorf("events = %q, want one ConfigTracked", events)
	}

	// A second pass has nothing to do.
	f = newFixture(t, d, cm, s)
	f.reconcile(t, "ns/app")
	if w := f.writes(); len(w) != 0 {
		t.Errorf("second pass wrote %v", w)
	}
}

func TestReconcileRollsOnChange(t *testing.T) {
	s := dbSecret()
	before := hashOf(appConfig("v1"), s)
	annotations := map[string]string{EnabledAnnotation: "true", ObservedHashAnnotation: before}
	cm := appConfig("v2")
	f := newFixture(t, appDeployment(annotations, map[string]string{"keep": "me"}), cm, s)
	f.reconcile(t, "ns/app")

	d := f.live(t, "ns", "app")
	want := hashOf(cm, s)
	if got := d.Spec.Template.Annotations[HashAnnotation]; got != want {
		t.Errorf("template hash = %q, want %q", got, want)
	}
	if got := d.Spec.Template.Annotations["keep"]; got != "me" {
		t.Errorf("other template annotation = %q, want it kept", got)
	}
	if got := d.Annotations[ObservedHashAnnotation]; got != want {
		t.Errorf("observed hash = %q, want %q", got, want)
	}
	events := f.events()
	if len(events) != 1 || !strings.HasPrefix(events[0], "Normal ConfigChanged") || !strings.Contains(events[0], before+" -> "+want) {
		t.Errorf("events = %q, want one ConfigChanged from %s to %s", events, before, want)
	}
	for _, a := range f.writes() {
		if u, ok := a.(k8stesting.UpdateActionImpl); ok {
			if fm := u.GetUpdateOptions().FieldManager; fm != FieldManager {
				t.Errorf("update with field manager %q, want %q", fm, FieldManager)
			}
		}
	}
}

func TestReconcileLeavesOthersAlone(t *testing.T) {
	cm, s := appConfig("v1"), dbSecret()
	deleting := appDeployment(enabled, nil)
	deleting.Name = "deleting"
	deleting.DeletionTimestamp = ptr.To(metav1.Now())
	deleting.Finalizers = []string{"keep"}
	f := newFixture(t, appDeployment(nil, nil), deleting, cm, s)
	for _, key := range []string{"ns/app", "ns/deleting", "ns/gone"} {
		f.reconcile(t, key)
	}
	if w := f.writes(); len(w) != 0 {
		t.Errorf("writes = %v, want none", w)
	}
	if e := f.events(); len(e) != 0 {
		t.Errorf("events = %q, want none", e)
	}
}

func TestReconcileWaitsForRequiredConfig(t *testing.T) {
	f := newFixture(t, appDeployment(enabled, nil), dbSecret())
	f.reconcile(t, "ns/app")
	if w := f.writes(); len(w) != 0 {
		t.Errorf("writes = %v, want none while configmap/app-config is missing", w)
	}
	events := f.events()
	if len(events) != 1 || events[0] != "Warning ConfigNotFound Not rolling out: configmap/app-config not found" {
		t.Errorf("events = %q, want one ConfigNotFound naming configmap/app-config", events)
	}
}

func TestReconcileHashesMissingOptionalConfigAsAbsent(t *testing.T) {
	d := appDeployment(enabled, nil)
	d.Spec.Template.Spec.Volumes[0].ConfigMap.Optional = ptr.To(true)
	s := dbSecret()
	f := newFixture(t, d, s)
	f.reconcile(t, "ns/app")
	want := Hash([]Content{
		{Ref: Ref{Kind: KindConfigMap, Name: "app-config", Optional: true}},
		{Ref: Ref{Kind: KindSecret, Name: "db"}, Found: true, Data: s.Data},
	})
	if got := f.live(t, "ns", "app").Annotations[ObservedHashAnnotation]; got != want {
		t.Errorf("observed hash = %q, want %q (configmap absent)", got, want)
	}
}

func TestReconcileRetriesConflictOnLiveObject(t *testing.T) {
	cm, s := appConfig("v2"), dbSecret()
	annotations := map[string]string{EnabledAnnotation: "true", ObservedHashAnnotation: hashOf(appConfig("v1"), s)}
	f := newFixture(t, appDeployment(annotations, nil), cm, s)

	// Someone else updates the Deployment after our cache saw it: the first
	// write conflicts, and the retry must keep their change.
	conflicts := 0
	f.client.PrependReactor("update", "deployments", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if conflicts > 0 {
			return false, nil, nil
		}
		conflicts++
		// The Fake is locked while a reactor runs: use its tracker.
		gvr := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
		obj, err := f.client.Tracker().Get(gvr, "ns", "app")
		if err != nil {
			t.Error(err)
			return true, nil, err
		}
		live := obj.(*appsv1.Deployment).DeepCopy()
		live.Labels = map[string]string{"edited": "by-someone-else"}
		if err := f.client.Tracker().Update(gvr, live, "ns"); err != nil {
			t.Error(err)
		}
		return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "deployments"}, "app", errors.New("stale"))
	})
	f.reconcile(t, "ns/app")

	d := f.live(t, "ns", "app")
	if conflicts != 1 {
		t.Fatalf("conflicts = %d, want 1", conflicts)
	}
	if d.Labels["edited"] != "by-someone-else" {
		t.Error("the retry overwrote a concurrent change")
	}
	if got, want := d.Spec.Template.Annotations[HashAnnotation], hashOf(cm, s); got != want {
		t.Errorf("template hash = %q, want %q", got, want)
	}
}

func TestReconcileBadKeyIsTerminal(t *testing.T) {
	f := newFixture(t)
	for _, key := range []string{"no-namespace", "a/b/c", ""} {
		_, err := f.r.Reconcile(context.Background(), key)
		if !controller.IsTerminal(err) {
			t.Errorf("Reconcile(%q) error = %v, want a terminal error", key, err)
		}
	}
}

func TestNewReconcilerNamesMissingFields(t *testing.T) {
	_, err := NewReconciler(Config{})
	if err == nil || !strings.Contains(err.Error(), "Client, Deployments, ConfigMaps, Secrets, Recorder") {
		t.Errorf("NewReconciler(Config{}) error = %v, want every missing field named", err)
	}
}
