package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	k8stesting "k8s.io/client-go/testing"

	"github.com/ctrlkit/ctrlkit/controller/controllertest"
	"github.com/ctrlkit/ctrlkit/examples/configrollout"
	"github.com/ctrlkit/ctrlkit/examples/internal/manifesttest"
)

const manifests = "../../manifests/*.yaml"

func TestManifests(t *testing.T) {
	m := manifesttest.Load(t, manifests)
	manifesttest.CheckOneController(t, m)
	manifesttest.CheckHardened(t, m, 65532, 30)
	c := m.Deployments[0].Spec.Template.Spec.Containers[0]
	o, err := parseOptions(c.Args, io.Discard)
	if err != nil {
		t.Fatalf("the Deployment's args do not parse: %v", err)
	}
	if !o.Manager.LeaderElection.Enabled || o.Manager.Lease.Namespace != m.Roles[0].Namespace {
		t.Errorf("leader election in %q, but the Lease Role is in %q", o.Manager.Lease.Namespace, m.Roles[0].Namespace)
	}
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	for _, probe := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe} {
		if probe == nil || probe.HTTPGet == nil {
			t.Fatal("want HTTP liveness and readiness probes")
		}
		_, port, _ := net.SplitHostPort(o.Manager.HealthProbeAddr)
		if got := ports[probe.HTTPGet.Port.String()]; strconv.Itoa(int(got)) != port {
			t.Errorf("probe on port %d, but --health-probe-bind-address is %q", got, o.Manager.HealthProbeAddr)
		}
	}
	data, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"CGO_ENABLED=0 go build", "./examples/configrollout/cmd/configrollout", "FROM gcr.io/distroless/static:nonroot", "USER 65532:65532"} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
}

// mayBeUnused are rules for requests a run on the fake cluster may not make.
var mayBeUnused = map[manifesttest.Request]string{
	{Group: "apps", Resource: "deployments", Verb: "get"}: "the live re-read after a conflicting update",
	{Group: "", Resource: "events", Verb: "patch"}:        "client-go's recorder patches the count of an event repeated within its cache window",
}

// TestRBAC runs the process with leader election on a fake cluster through
// adoption, a rollout and a missing Secret, then checks manifests/rbac.yaml
// against its requests both ways.
func TestRBAC(t *testing.T) {
	optIn := map[string]string{configrollout.EnabledAnnotation: "true"}
	envFrom := func(cm, secret string) []corev1.EnvFromSource {
		return []corev1.EnvFromSource{
			{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm}}},
			{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: secret}}},
		}
	}
	web := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", Annotations: optIn},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", EnvFrom: envFrom("web", "web")}}}}}}
	broken := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "broken", Annotations: optIn},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "b", EnvFrom: envFrom("web", "missing")}}}}}}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}, Data: map[string]string{"A": "1"}}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}, Data: map[string][]byte{"B": []byte("2")}}
	client := controllertest.NewClientset(web, broken, cm, secret)

	o, err := parseOptions([]string{"--leader-elect-resource-namespace=ctrlkit-system", "--metrics-bind-address=0", "--health-probe-bind-address=0"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mgr, err := newManager(ctx, o, client)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Run(ctx) }()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			if err := <-done; err != nil {
				t.Errorf("manager: %v", err)
			}
		}
	}
	defer stop()

	poll := func(what string, cond func() bool) {
		t.Helper()
		if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true,
			func(context.Context) (bool, error) { return cond(), nil }); err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
	}
	seen := func(verb, resource string) bool {
		return slices.ContainsFunc(client.Actions(), func(a k8stesting.Action) bool {
			return a.GetVerb() == verb && a.GetResource().Resource == resource
		})
	}
	poll("the adoption", func() bool { return seen("update", "deployments") })
	poll("the ConfigMap watch", func() bool { return seen("watch", "configmaps") })
	// The test reads and writes through the tracker, so that every recorded
	// action is the controller's.
	cm.Data["A"] = "2"
	if err := client.Tracker().Update(corev1.SchemeGroupVersion.WithResource("configmaps"), cm, "default"); err != nil {
		t.Fatal(err)
	}
	poll("the rollout", func() bool {
		obj, err := client.Tracker().Get(appsv1.SchemeGroupVersion.WithResource("deployments"), "default", "web")
		return err == nil && obj.(*appsv1.Deployment).Spec.Template.Annotations[configrollout.HashAnnotation] != ""
	})
	poll("the events", func() bool { return seen("create", "events") })
	stop()

	manifesttest.CheckRBAC(t, manifesttest.Load(t, manifests), client.Actions(), mayBeUnused)
}
