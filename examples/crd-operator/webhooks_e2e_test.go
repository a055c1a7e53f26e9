//go:build e2e

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/controller/envtest"
	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// TestWebAppWebhooksE2E runs the operator with its webhooks on the local
// control plane: the API server calls them over TLS, at
// https://127.0.0.1:PORT, with the caBundle the operator wrote from its
// self-managed certificates, and kubectl creates, updates and deletes
// WebApps that are defaulted, denied and warned about as the handlers say.
func TestWebAppWebhooksE2E(t *testing.T) {
	env, kube := startOperatorEnv(t, nil, "shop")
	ctx := t.Context()
	kubectl := func(stdin string, args ...string) (string, error) {
		cmd := env.Kubectl(ctx, args...)
		if stdin != "" {
			cmd.Stdin = strings.NewReader(stdin)
		}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	mgr := startWebhookOperator(t, env.RESTConfig())
	addr := mgr.GetWebhookServer().Addr()

	// Before the configurations exist, /readyz says what it waits for.
	testutil.Eventually(t, time.Minute, "/readyz to say the configurations are missing", func(context.Context) (bool, error) {
		got := readyz(t, mgr)
		return strings.Contains(got, `validatingwebhookconfiguration.admissionregistration.k8s.io "webapp-operator" not found`), errors.New(got)
	})
	installOperatorWebhooks(t, env, addr)
	testutil.Eventually(t, time.Minute, "/readyz/webhook-certificates to pass", func(context.Context) (bool, error) {
		got := readyz(t, mgr)
		return got == "", errors.New(got)
	})

	const app = `{"apiVersion":"example.ctrlkit.dev/v1alpha1","kind":"WebApp","metadata":{"name":"web","namespace":"shop"},"spec":{"image":"nginx"}}`
	out, err := kubectl(app, "create", "-f", "-")
	if err != nil {
		t.Fatalf("kubectl create: %v\n%s", err, out)
	}
	if !strings.Contains(out, `Warning: spec.image "nginx" has no tag`) {
		t.Errorf("kubectl create printed %q, want the untagged image's warning", out)
	}
	if out, err := kubectl("", "get", "webapp", "web", "-n", "shop", "-o", "jsonpath={.metadata.labels.app\\.kubernetes\\.io/name}"); err != nil || out != "web" {
		t.Errorf("the defaulted label: %q, %v; want web", out, err)
	}

	// A patch at v1alpha1 (kubectl's webapp is v1, the preferred version):
	// the stored v1 object is converted to v1alpha1, patched, and stored
	// at v1 again.
	out, err = kubectl("", "patch", "webapps.v1alpha1.example.ctrlkit.dev", "web", "-n", "shop", "--type=merge", "-p", `{"spec":{"replicas":0,"image":"nginx:1.27"}}`)
	if err != nil || !strings.Contains(out, "Warning: WebApp web has 0 replicas") || strings.Contains(out, "no tag") {
		t.Errorf("kubectl patch to 0 replicas: %v\n%s\nwant the 0 replicas warning only", err, out)
	}
	// The operator reads v1, through its informer's watch: the Deployment
	// follows the patch made at v1alpha1.
	testutil.Eventually(t, time.Minute, "the Deployment to follow the patch made at v1alpha1", func(ctx context.Context) (bool, error) {
		d, err := kube.AppsV1().Deployments("shop").Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		replicas, image := d.Spec.Replicas, d.Spec.Template.Spec.Containers[0].Image
		return replicas != nil && *replicas == 0 && image == "nginx:1.27", fmt.Errorf("replicas %v, image %s", ptrValue(replicas), image)
	})
	testConversion(t, kubectl)

	if _, err := kube.AppsV1().Deployments("shop").Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "taken"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "taken"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "taken"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:1.27"}}}},
		},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	out, err = kubectl(strings.ReplaceAll(app, `"web"`, `"taken"`), "create", "-f", "-")
	if err == nil || !strings.Contains(out, `metadata.name: Invalid value: "taken": a Deployment of this name exists`) {
		t.Errorf("kubectl create in the way of a Deployment: %v\n%s\nwant the field error", err, out)
	}

	// The delete goes through: the DELETE webhook only warns, and the
	// operator removes its finalizer past the matchConditions.
	if out, err := kubectl("", "delete", "webapp", "web", "-n", "shop", "--timeout=60s"); err != nil {
		t.Errorf("kubectl delete: %v\n%s", err, out)
	}
}

// startWebhookOperator runs the operator with webhooks on 127.0.0.1, as
// the service account of manifests/rbac.yaml, until the test ends, and
// returns its manager once the webhook server listens.
func startWebhookOperator(t *testing.T, cfg *rest.Config, extraArgs ...string) *manager.Manager {
	mgr, _ := runWebhookOperator(t, cfg, nil, extraArgs...)
	return mgr
}

// runWebhookOperator is startWebhookOperator that also returns stop,
// which ends the operator as a SIGTERM would (the webhook server drains
// the requests in flight) and returns once it has stopped; the test's
// cleanup calls it too. created, if not nil, sees the manager before it
// runs.
func runWebhookOperator(t *testing.T, cfg *rest.Config, created func(*manager.Manager), extraArgs ...string) (mgr *manager.Manager, stop func()) {
	args := append([]string{"--leader-elect-resource-namespace=ctrlkit-system", "--metrics-bind-address=0",
		"--health-probe-bind-address=127.0.0.1:0", "--webhook-bind-address=127.0.0.1:0", "--webhook-host-names=127.0.0.1"}, extraArgs...)
	o, err := parseOptions(args, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	config := rest.CopyConfig(cfg)
	config.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:ctrlkit-system:webapp-operator"}
	ctx, cancel := context.WithCancel(context.Background())
	mgr, err = newManager(ctx, o, config)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if created != nil {
		created(mgr)
	}
	var runErr error
	stopped := make(chan struct{})
	go func() { runErr = mgr.Run(ctx); close(stopped) }()
	stop = sync.OnceFunc(func() {
		cancel()
		<-stopped
		if runErr != nil {
			t.Errorf("operator: %v", runErr)
		}
	})
	t.Cleanup(stop)
	select {
	case <-mgr.GetWebhookServer().Listening():
	case <-stopped:
		t.Fatalf("operator stopped: %v", runErr)
	}
	testutil.Eventually(t, 30*time.Second, "the health probe to listen", testutil.True(func() bool { return mgr.HealthProbeAddr() != "" }))
	return mgr, stop
}

// readyz is the failure the webhook-certificates check reports, "" if it
// passes.
func readyz(t *testing.T, mgr *manager.Manager) string {
	resp, err := http.Get("http://" + mgr.HealthProbeAddr() + "/readyz/webhook-certificates")
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK {
		return ""
	}
	return string(body)
}

// installOperatorWebhooks installs the configurations of
// manifests/webhook/manifests.yaml, calling the operator at addr, with the
// caBundle it writes, and returns once a dry-run WebApp in namespace shop
// has gone through them. The probe is a v1alpha1 WebApp, which the API
// server converts to v1 for the webhooks (registered for v1) through the
// CRD's conversion webhook, which ConversionPath points at addr too;
// InstallWebhooks also waits until the probe has been converted to v1 and
// back.
func installOperatorWebhooks(t *testing.T, env *envtest.Environment, addr string) {
	t.Helper()
	if err := env.InstallWebhooks(t.Context(), envtest.WebhookInstallOptions{
		Paths:          []string{"manifests/webhook/manifests.yaml"},
		Addr:           addr,
		SelfManaged:    true,
		ConversionPath: conversionPath,
		DryRunProbe: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.ctrlkit.dev/v1alpha1", "kind": "WebApp",
			"metadata": map[string]any{"namespace": "shop"}, "spec": map[string]any{"image": "nginx:1.27"}}},
	}); err != nil {
		t.Fatal(err)
	}
}

// installWebhooks creates the configurations of
// manifests/webhook/manifests.yaml (generated from the markers),
// with each webhook's Service replaced by the URL of the server at addr:
// the test's API server cannot reach a Service. Unlike
// installOperatorWebhooks it does not wait for a request to get through,
// for the tests where none can yet: a foreign caBundle, and replicas that
// join their proxy only once ready.
func installWebhooks(t *testing.T, kube kubernetes.Interface, addr string) {
	f, err := os.Open("manifests/webhook/manifests.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	toURL := func(cc *admissionv1.WebhookClientConfig) {
		url := "https://" + addr + *cc.Service.Path
		cc.Service, cc.URL = nil, &url
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	for {
		var u unstructured.Unstructured
		if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
			return
		} else if err != nil {
			t.Fatal(err)
		}
		var err error
		switch u.GetKind() {
		case "ValidatingWebhookConfiguration":
			var c admissionv1.ValidatingWebhookConfiguration
			if err = runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &c); err == nil {
				for i := range c.Webhooks {
					toURL(&c.Webhooks[i].ClientConfig)
				}
				_, err = kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(t.Context(), &c, metav1.CreateOptions{})
			}
		case "MutatingWebhookConfiguration":
			var c admissionv1.MutatingWebhookConfiguration
			if err = runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &c); err == nil {
				for i := range c.Webhooks {
					toURL(&c.Webhooks[i].ClientConfig)
				}
				_, err = kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(t.Context(), &c, metav1.CreateOptions{})
			}
		}
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("%s %s: %v", u.GetKind(), u.GetName(), err)
		}
	}
}

// ptrValue is *p, or "nil".
func ptrValue[T any](p *T) any {
	if p == nil {
		return "nil"
	}
	return *p
}
