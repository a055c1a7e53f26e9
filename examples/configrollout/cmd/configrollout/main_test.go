package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	k8stesting "k8s.io/client-go/testing"

	"github.com/ctrlkit/ctrlkit/controller/controllertest"
	"github.com/ctrlkit/ctrlkit/examples/configrollout"
)

func TestParseOptions(t *testing.T) {
	o, err := parseOptions([]string{"--namespace=team-a", "--concurrent-syncs=4", "--leader-elect=false"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.Namespace != "team-a" || o.ConcurrentSyncs != 4 || o.Manager.LeaderElection.Enabled || o.Manager.LeaderElection.Name != "configrollout" || o.KubeAPIQPS != 20 {
		t.Errorf("options = %+v", o)
	}
	for args, want := range map[string]string{
		"--namespace=Team_A":        `--namespace "Team_A"`,
		"--concurrent-syncs=0":      "--concurrent-syncs must be at least 1",
		"--kube-api-burst=0":        "--kube-api-burst must be at least 1",
		"--leader-elect-lease-dura": "unknown flag: --leader-elect-lease-dura",
	} {
		if _, err := parseOptions([]string{args}, io.Discard); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseOptions(%s) = %v, want an error containing %q", args, err, want)
		}
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"--help"}, &out); !errors.Is(err, flag.ErrHelp) || !strings.Contains(out.String(), "--namespace") {
		t.Errorf("run(--help) = %v with usage %q; want flag.ErrHelp and the usage", err, out.String())
	}
}

// TestRollsOnConfigChange runs the whole process on a fake cluster: a
// Deployment that opts in is adopted, then rolled when its ConfigMap
// changes; one in another namespace is outside --namespace.
func TestRollsOnConfigChange(t *testing.T) {
	deployment := func(namespace string) *appsv1.Deployment {
		return &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "web", Annotations: map[string]string{configrollout.EnabledAnnotation: "true"}},
			Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{
				Name:    "web",
				EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web"}}}},
			}}}}},
		}
	}
	configMap := func(namespace string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "web"}, Data: map[string]string{"MODE": "a"}}
	}
	client := controllertest.NewClientset(deployment("team-a"), configMap("team-a"), deployment("team-b"), configMap("team-b"))
	o, err := parseOptions([]string{"--namespace=team-a", "--leader-elect=false", "--metrics-bind-address=0", "--health-probe-bind-address=0"}, io.Discard)
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
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	}()

	get := func(namespace string) *appsv1.Deployment {
		d, err := client.AppsV1().Deployments(namespace).Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	poll := func(what string, cond func() bool) {
		t.Helper()
		if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true,
			func(context.Context) (bool, error) { return cond(), nil }); err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
	}
	poll("adoption", func() bool { return get("team-a").Annotations[configrollout.ObservedHashAnnotation] != "" })
	// The fake clientset drops changes made before a watch starts (a real
	// API server replays them from the list's resourceVersion): wait for it.
	poll("the ConfigMap watch", func() bool {
		return slices.ContainsFunc(client.Actions(), func(a k8stesting.Action) bool {
			return a.GetVerb() == "watch" && a.GetResource().Resource == "configmaps"
		})
	})

	cm := configMap("team-a")
	cm.Data["MODE"] = "b"
	if _, err := client.CoreV1().ConfigMaps("team-a").Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll("the rollout", func() bool { return get("team-a").Spec.Template.Annotations[configrollout.HashAnnotation] != "" })

	if other := get("team-b"); len(other.Annotations) != 1 {
		t.Errorf("a Deployment outside --namespace was touched: %v", other.Annotations)
	}
}
