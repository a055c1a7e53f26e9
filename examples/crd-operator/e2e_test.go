//go:build e2e

package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller/controllerutil"
	"github.com/ctrlkit/ctrlkit/controller/typed"
	v1 "github.com/ctrlkit/ctrlkit/examples/crd-operator/api/v1"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// TestWebAppOperatorE2E applies the manifests with the documented kubectl
// command (the CRD again, which envtest installed), runs the operator in-process, and follows a WebApp through its
// life: created, available, rolled to a new image, deleted; then bad input.
func TestWebAppOperatorE2E(t *testing.T) {
	c := startCluster(t)
	ctx := t.Context()
	for _, f := range []string{"manifests/example.ctrlkit.dev_webapps.yaml", "manifests/namespace.yaml", "manifests/role.yaml", "manifests/rbac.yaml"} {
		if out, err := c.kubectl(ctx, "apply", "-f", f); err != nil {
			t.Fatalf("kubectl apply -f %s: %v\n%s", f, err, out)
		}
	}
	if out, err := c.kubectl(ctx, "wait", "--for=condition=Established", "--timeout=60s", "crd/webapps.example.ctrlkit.dev"); err != nil {
		t.Fatalf("waiting for the CRD: %v\n%s", err, out)
	}
	kube := kubernetes.NewForConfigOrDie(c.config)
	webApps, err := typed.NewClient[*v1.WebApp](c.config, v1.Resource)
	if err != nil {
		t.Fatal(err)
	}
	ns := "shop"
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	startOperator(t, c)

	t.Run("invalid", func(t *testing.T) { testInvalid(t, webApps.Namespace(ns)) })
	t.Run("name conflict", func(t *testing.T) { testNameConflict(t, kube, webApps.Namespace(ns)) })
	t.Run("lifecycle", func(t *testing.T) { testLifecycle(t, c, kube, webApps.Namespace(ns)) })

	// Events are written without retries, so a missing grant would only be
	// logged: check that the leadership event on the Lease was written.
	testutil.Eventually(t, time.Minute, "the LeaderElection event in ctrlkit-system", func(ctx context.Context) (bool, error) {
		list, err := kube.CoreV1().Events("ctrlkit-system").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		return slices.ContainsFunc(list.Items, func(e corev1.Event) bool { return e.Reason == "LeaderElection" }), nil
	})
}

// startOperator runs the operator's manager until the test ends, as the
// service account of manifests/rbac.yaml (impersonated), with leader
// election: every request it makes must be allowed by that RBAC.
func startOperator(t *testing.T, c cluster) {
	o, err := parseOptions([]string{"--leader-elect-resource-namespace=ctrlkit-system", "--metrics-bind-address=0", "--health-probe-bind-address=0"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	config := rest.CopyConfig(c.config)
	config.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:ctrlkit-system:webapp-operator"}
	ctx, cancel := context.WithCancel(context.Background())
	mgr, err := newManager(ctx, o, config)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("operator: %v", err)
		}
	})
}

func testLifecycle(t *testing.T, c cluster, kube kubernetes.Interface, webApps *typed.Client[*v1.WebApp]) {
	ctx := t.Context()
	app, err := webApps.Create(ctx, &v1.WebApp{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: v1.WebAppSpec{Image: v1.Image{Repository: "nginx", Tag: "1.26"}, Replicas: ptr.To[int32](2)}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if app.Spec.ContainerPort != 8080 {
		t.Errorf("containerPort = %d, want the CRD's default 8080", app.Spec.ContainerPort)
	}
	ns := app.Namespace

	var d *appsv1.Deployment
	testutil.Eventually(t, time.Minute, "the Deployment and the Service, controlled by the WebApp", func(ctx context.Context) (bool, error) {
		if d, err = kube.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{}); err != nil {
			return false, err
		}
		s, err := kube.CoreV1().Services(ns).Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return metav1.IsControlledBy(d, app) && metav1.IsControlledBy(s, app), nil
	})
	if got := d.Spec.Template.Spec.Containers[0]; got.Image != "nginx:1.26" || got.Ports[0].ContainerPort != 8080 || *d.Spec.Replicas != 2 {
		t.Errorf("Deployment: image %s, port %d, replicas %d; want nginx:1.26, 8080, 2", got.Image, got.Ports[0].ContainerPort, *d.Spec.Replicas)
	}
	testutil.Eventually(t, time.Minute, "the registry entry in webapp-registry", func(ctx context.Context) (bool, error) {
		cm, err := kube.CoreV1().ConfigMaps("webapp-registry").Get(ctx, "shop.web", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return cm.Data["service"] == "web.shop.svc", fmt.Errorf("data %v", cm.Data)
	})
	t.Log("created")
	waitReady(t, c, webApps, ns, "web")
	app = waitForRollout(t, webApps, "web")
	if app.Status.AvailableReplicas != 2 || !controllerutil.ContainsFinalizer(app, finalizer) {
		t.Errorf("status %+v, finalizers %v", app.Status, app.Finalizers)
	}

	// A new image: the WebApp's generation goes up, Progressing turns True
	// (or the rollout is quick enough to be seen complete at once), and the
	// rollout ends with every pod on the new image.
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		app, err := webApps.Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return err
		}
		app.Spec.Image.Tag = "1.27"
		_, err = webApps.Update(ctx, app, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("image changed")
	waitReady(t, c, webApps, ns, "web")
	waitForRollout(t, webApps, "web")
	d, err = kube.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if img := d.Spec.Template.Spec.Containers[0].Image; img != "nginx:1.27" || !rolloutComplete(d) {
		t.Errorf("Deployment: image %s, status %+v; want nginx:1.27, rolled out", img, d.Status)
	}

	// Deletion: the finalizer's cleanup deletes the registry entry, the
	// finalizer goes, and the garbage collector deletes what the WebApp
	// owned (in the background, kubectl's default).
	t.Log("deleting")
	if err := webApps.Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, time.Minute, "the finalizer's cleanup and the WebApp gone", func(ctx context.Context) (bool, error) {
		return gone(webApps.Get(ctx, "web", metav1.GetOptions{})) &&
			gone(kube.CoreV1().ConfigMaps("webapp-registry").Get(ctx, "shop.web", metav1.GetOptions{})), nil
	})
	testutil.Eventually(t, 2*time.Minute, "the garbage collector to delete the Deployment and the Service", func(ctx context.Context) (bool, error) {
		return gone(kube.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})) &&
			gone(kube.CoreV1().Services(ns).Get(ctx, "web", metav1.GetOptions{})), nil
	})
}

// waitReady runs kubectl wait --for=condition=Ready on the WebApp, which
// returns once Ready is True for the WebApp's current generation, and
// checks that the WebApp then reads as reconciled: Ready current, no
// Reconciling or Stalled, status.observedGeneration current (what kstatus
// calls Current).
func waitReady(t *testing.T, c cluster, webApps *typed.Client[*v1.WebApp], ns, name string) {
	t.Helper()
	if out, err := c.kubectl(t.Context(), "wait", "--for=condition=Ready", "--timeout=120s", "-n", ns, "webapp/"+name); err != nil {
		t.Fatalf("kubectl wait --for=condition=Ready webapp/%s: %v\n%s", name, err, out)
	}
	app, err := webApps.Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !controllerutil.IsConditionCurrent(app, app.Status.Conditions, controllerutil.ConditionReady, metav1.ConditionTrue) ||
		meta.FindStatusCondition(app.Status.Conditions, controllerutil.ConditionReconciling) != nil ||
		meta.FindStatusCondition(app.Status.Conditions, controllerutil.ConditionStalled) != nil ||
		app.Status.ObservedGeneration != app.Generation {
		t.Errorf("after kubectl wait: generation %d, status %+v; want Ready current, no Reconciling or Stalled", app.Generation, app.Status)
	}
}

// waitForRollout waits until the WebApp reports, for its current
// generation, Available and a finished rollout, and returns it.
func waitForRollout(t *testing.T, webApps *typed.Client[*v1.WebApp], name string) *v1.WebApp {
	t.Helper()
	var app *v1.WebApp
	testutil.Eventually(t, time.Minute, name+" available and rolled out", func(ctx context.Context) (bool, error) {
		var err error
		if app, err = webApps.Get(ctx, name, metav1.GetOptions{}); err != nil {
			return false, err
		}
		p := meta.FindStatusCondition(app.Status.Conditions, v1.Progressing)
		done := app.Status.ObservedGeneration == app.Generation &&
			controllerutil.IsConditionCurrent(app, app.Status.Conditions, v1.Available, metav1.ConditionTrue) &&
			p != nil && p.Reason == reasonRolloutComplete && p.ObservedGeneration == app.Generation
		return done, fmt.Errorf("status %+v", app.Status)
	})
	return app
}

func testInvalid(t *testing.T, webApps *typed.Client[*v1.WebApp]) {
	for name, spec := range map[string]v1.WebAppSpec{
		"no-image":      {},
		"negative":      {Image: v1.Image{Repository: "nginx"}, Replicas: ptr.To[int32](-1)},
		"port-too-high": {Image: v1.Image{Repository: "nginx"}, ContainerPort: 70000},
	} {
		_, err := webApps.Create(t.Context(), &v1.WebApp{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}, metav1.CreateOptions{})
		if !apierrors.IsInvalid(err) {
			t.Errorf("create %s: %v, want Invalid", name, err)
		}
	}
	testInvalidCondition(t, webApps)
}

// testInvalidCondition: the generated schema carries metav1.Condition's own
// markers, which the hand-written CRD left out, so the API server refuses a
// status whose condition reason is not a CamelCase word (the hand-written
// schema accepted any string).
func testInvalidCondition(t *testing.T, webApps *typed.Client[*v1.WebApp]) {
	ctx := t.Context()
	app, err := webApps.Create(ctx, &v1.WebApp{ObjectMeta: metav1.ObjectMeta{Name: "bad-reason"}, Spec: v1.WebAppSpec{Image: v1.Image{Repository: "nginx"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = webApps.Delete(context.WithoutCancel(ctx), app.Name, metav1.DeleteOptions{}) })
	// The operator writes this WebApp's status too: retry on its conflicts.
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		app, err := webApps.Get(ctx, app.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		app.Status.Conditions = []metav1.Condition{{
			Type: v1.Available, Status: metav1.ConditionFalse, Reason: "not a reason",
			LastTransitionTime: metav1.Now(),
		}}
		_, err = webApps.UpdateStatus(ctx, app, metav1.UpdateOptions{})
		return err
	})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "reason") {
		t.Errorf("a status condition with reason %q: %v, want Invalid on the reason", "not a reason", err)
	}
}

func testNameConflict(t *testing.T, kube kubernetes.Interface, webApps *typed.Client[*v1.WebApp]) {
	ctx := t.Context()
	ns := "shop"
	labels := map[string]string{"app": "theirs"}
	theirs := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "taken"}, Spec: appsv1.DeploymentSpec{
		Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "theirs"}}}},
	}}
	if _, err := kube.AppsV1().Deployments(ns).Create(ctx, theirs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"taken", "other"} {
		if _, err := webApps.Create(ctx, &v1.WebApp{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: v1.WebAppSpec{Image: v1.Image{Repository: "nginx"}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	testutil.Eventually(t, time.Minute, "taken: Progressing=False NameConflict", func(ctx context.Context) (bool, error) {
		app, err := webApps.Get(ctx, "taken", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return controllerutil.IsConditionCurrent(app, app.Status.Conditions, v1.Progressing, metav1.ConditionFalse) &&
			meta.FindStatusCondition(app.Status.Conditions, v1.Progressing).Reason == reasonNameConflict, fmt.Errorf("status %+v", app.Status)
	})
	var warnings int32
	testutil.Eventually(t, time.Minute, "a NameConflict Warning event on taken", func(ctx context.Context) (bool, error) {
		warnings, err := nameConflictEvents(ctx, kube, ns)
		return warnings > 0, err
	})
	waitForRollout(t, webApps, "other")

	// No hot loop: a terminal error is not retried, so neither the WebApp
	// nor its events change while nothing else does.
	app, err := webApps.Get(ctx, "taken", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	warnings, _ = nameConflictEvents(ctx, kube, ns)
	testutil.Consistently(t, 3*time.Second, "taken left alone", func(ctx context.Context) error {
		now, err := webApps.Get(ctx, "taken", metav1.GetOptions{})
		if err != nil {
			return err
		}
		n, err := nameConflictEvents(ctx, kube, ns)
		if err != nil {
			return err
		}
		if now.ResourceVersion != app.ResourceVersion || n != warnings {
			return fmt.Errorf("resourceVersion %s -> %s, events %d -> %d", app.ResourceVersion, now.ResourceVersion, warnings, n)
		}
		return nil
	})
	if d, err := kube.AppsV1().Deployments(ns).Get(ctx, "taken", metav1.GetOptions{}); err != nil || metav1.GetControllerOf(d) != nil {
		t.Errorf("their Deployment: %v, controller %v; want it untouched", err, metav1.GetControllerOf(d))
	}

	// Their Deployment goes: the WebApp is woken and takes the name.
	if err := kube.AppsV1().Deployments(ns).Delete(ctx, "taken", metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationForeground)}); err != nil {
		t.Fatal(err)
	}
	waitForRollout(t, webApps, "taken")
}

// nameConflictEvents counts the NameConflict warnings recorded on the
// WebApp "taken", repeats included.
func nameConflictEvents(ctx context.Context, kube kubernetes.Interface, ns string) (int32, error) {
	list, err := kube.EventsV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	var n int32
	for _, e := range list.Items {
		if e.Regarding.Kind == "WebApp" && e.Regarding.Name == "taken" && e.Reason == reasonNameConflict && e.Type == corev1.EventTypeWarning {
			n++
			if e.Series != nil {
				n += e.Series.Count - 1
			}
		}
	}
	return n, nil
}

// gone reports whether a Get found nothing.
func gone[T any](_ T, err error) bool { return apierrors.IsNotFound(err) }
