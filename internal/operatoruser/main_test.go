package operatoruser

import (
	"os"
	"testing"

	"github.com/ctrlkit/ctrlkit/controller/envtest"
)

// env is an API server with the generated CRD of config/crd installed,
// shared by the package's tests.
var env *envtest.Environment

func TestMain(m *testing.M) {
	os.Exit(envtest.RunMain(m, envtest.Options{CRDPaths: []string{"config/crd"}},
		func(e *envtest.Environment) { env = e }))
}
