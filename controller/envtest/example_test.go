package envtest_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/controller/envtest"
)

// Start a Full environment, use it, stop it. The first call builds the
// binaries (minutes); later ones start in seconds.
func ExampleStart() {
	ctx := context.Background()
	env, err := envtest.Start(ctx, envtest.Options{
		Mode:          envtest.Full,
		Nodes:         2,
		PodReadyDelay: 500 * time.Millisecond, // rollouts in visible steps
		Log:           os.Stderr,              // build and start progress
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer env.Stop()

	nodes, err := env.Client().CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(nodes.Items), "nodes; kubeconfig at", env.KubeconfigPath())
}

// In a test, StartForTest fails the test on error and stops the
// environment when the test ends. Here an API server with the CRDs of a
// directory installed and established.
func ExampleStartForTest() {
	testFunc := func(t *testing.T) {
		env := envtest.StartForTest(t, envtest.Options{CRDPaths: []string{"testdata/crds"}})
		ns := env.Namespace(t)
		_ = env.RESTConfig() // a client for the code under test
		_ = ns
	}
	_ = testFunc
}

// One environment for all the tests of a package, each test in a namespace
// of its own.
func ExampleRunMain() {
	var env *envtest.Environment
	testMain := func(m *testing.M) {
		os.Exit(envtest.RunMain(m, envtest.Options{
			Mode:        envtest.Full,
			Controllers: []string{"replicaset", "garbagecollector"}, // a Deployment controller under test
		}, func(e *envtest.Environment) { env = e }))
	}
	_ = testMain
	_ = env
}
