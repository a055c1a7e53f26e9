package controlplane_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/internal/controlplane"
)

// Start a control plane, use it, stop it. The first call builds the
// binaries (minutes); later ones start in seconds.
func ExampleStart() {
	ctx := context.Background()
	cp, err := controlplane.Start(ctx, controlplane.Options{
		Nodes:         2,
		PodReadyDelay: 500 * time.Millisecond, // rollouts in visible steps
		Log:           os.Stderr,              // build and start progress
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cp.Stop()

	nodes, err := cp.Client().CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(nodes.Items), "nodes; kubeconfig at", cp.KubeconfigPath())
}

// In a test, StartForTest fails the test on error and stops the control
// plane when the test ends. Build such tests with a tag (ctrlkit uses e2e)
// and run them with a generous -timeout.
func ExampleStartForTest() {
	testFunc := func(t *testing.T) {
		cp := controlplane.StartForTest(t, controlplane.Options{UpstreamDeploymentController: true})
		_ = cp.RESTConfig() // a client for the code under test
	}
	_ = testFunc
}
