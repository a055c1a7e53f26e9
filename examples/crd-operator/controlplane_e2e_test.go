//go:build e2e

package main

import (
	"context"
	"testing"

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
