//go:build e2e

package main

import (
	"context"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/internal/controlplane"
)

// cluster is what the e2e test needs of a control plane; startCluster is
// the one place that knows where it comes from, so that moving to a public
// test environment changes only this file.
type cluster struct {
	config  *rest.Config
	kubectl func(ctx context.Context, args ...string) ([]byte, error)
}

// startCluster starts a local control plane for t whose
// kube-controller-manager runs the upstream Deployment controller (which
// rolls the operator's Deployments out) and the garbage collector.
func startCluster(t *testing.T) cluster {
	cp := controlplane.StartForTest(t, controlplane.Options{UpstreamDeploymentController: true})
	return cluster{
		config: cp.RESTConfig(),
		kubectl: func(ctx context.Context, args ...string) ([]byte, error) {
			return cp.Kubectl(ctx, args...).CombinedOutput()
		},
	}
}
