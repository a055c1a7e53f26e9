//go:build e2e

package e2e

import (
	"testing"

	"k8s.io/client-go/kubernetes"

	"github.com/ctrlkit/ctrlkit/internal/controlplane"
)

// deploymentController is one of the Deployment controllers the scenarios
// run against.
type deploymentController struct {
	name string
	cp   *sharedControlPlane
	// start runs the controller for namespace ns until the test ends; nil
	// when the control plane's kube-controller-manager runs it.
	start func(t *testing.T, cp *controlplane.ControlPlane, ns string)
}

// deploymentControllers are compared on every scenario: upstream's proves
// that the scenario and its expectations are right, ours must pass the same.
var deploymentControllers = []deploymentController{
	{name: "upstream", cp: &upstreamCP},
}

// forEachController runs a scenario against every Deployment controller,
// each in a namespace of its own.
func forEachController(t *testing.T, scenario func(t *testing.T, client kubernetes.Interface, ns string)) {
	for _, dc := range deploymentControllers {
		t.Run(dc.name, func(t *testing.T) {
			cp := dc.cp.get(t)
			client := cp.Client()
			ns := newNamespace(t, client)
			if dc.start != nil {
				dc.start(t, cp, ns)
			}
			scenario(t, client, ns)
		})
	}
}
