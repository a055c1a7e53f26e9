package envtestuser

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/ctrlkit/ctrlkit/controller/envtest"
)

// env is the API-server-only environment shared by the package's tests,
// with the CRDs of testdata/crds installed.
var env *envtest.Environment

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		// A child of TestStopLeavesNothingRunning starts its own.
		os.Exit(m.Run())
	}
	code := envtest.RunMain(m, envtest.Options{CRDPaths: []string{"testdata/crds"}},
		func(e *envtest.Environment) { env = e })
	if code == 0 {
		if err := goleak.Find(goleak.IgnoreTopFunction("k8s.io/klog/v2.(*flushDaemon).run.func1")); err != nil {
			fmt.Fprintln(os.Stderr, "leaked goroutines:", err)
			code = 1
		}
	}
	os.Exit(code)
}
