//go:build e2e

package main

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/controller/envtest"
)

// cluster is what the e2e test needs of a control plane.
type cluster struct {
	config  *rest.Config
	kubectl func(ctx context.Context, args ...string) ([]byte, error)
}

// startCluster starts a local control plane for t with the WebApp CRD
// installed, whose kube-controller-manager runs the upstream Deployment
// controller (which rolls the operator's Deployments out) and the garbage
// collector. The CRD is there before kube-controller-manager starts, so the
// garbage collector knows WebApps from the start.
func startCluster(t *testing.T) cluster {
	env := envtest.StartForTest(t, envtest.Options{Mode: envtest.Full, Kubectl: true, CRDPaths: []string{"manifests/example.ctrlkit.dev_webapps.yaml"}})
	return cluster{
		config: env.RESTConfig(),
		kubectl: func(ctx context.Context, args ...string) ([]byte, error) {
			return env.Kubectl(ctx, args...).CombinedOutput()
		},
	}
}

// startOperatorEnv starts a local control plane (API server only) for t
// with the WebApp CRD, applies the operator's namespace, role and binding,
// then extra manifests, and creates namespaces: where an operator the test
// runs in-process finds what its deployment would give it.
func startOperatorEnv(t *testing.T, extra []string, namespaces ...string) (*envtest.Environment, kubernetes.Interface) {
	t.Helper()
	env := envtest.StartForTest(t, envtest.Options{Kubectl: true, CRDPaths: []string{"manifests/example.ctrlkit.dev_webapps.yaml"}})
	ctx := t.Context()
	for _, f := range append([]string{"manifests/namespace.yaml", "manifests/role.yaml", "manifests/rbac.yaml"}, extra...) {
		if out, err := env.Kubectl(ctx, "apply", "-f", f).CombinedOutput(); err != nil {
			t.Fatalf("kubectl apply -f %s: %v\n%s", f, err, out)
		}
	}
	kube := kubernetes.NewForConfigOrDie(env.RESTConfig())
	for _, ns := range namespaces {
		if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return env, kube
}
