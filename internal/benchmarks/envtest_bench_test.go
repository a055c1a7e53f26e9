package benchmarks

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	crenvtest "sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/ctrlkit/ctrlkit/controller/envtest"
	"github.com/ctrlkit/ctrlkit/controller/envtest/binaries"
)

// BenchmarkEnvironmentStart starts an API-server-only test environment
// (etcd and kube-apiserver) and stops it, with ctrlkit's controller/envtest
// and with controller-runtime's envtest on the very same binaries (ctrlkit's
// cache, which holds etcd, kube-apiserver and kubectl, as setup-envtest's
// directory would). An operation is one start until the environment is
// ready; the stop is not timed. It builds the binaries first if they are
// not cached (minutes): run it with a generous -timeout.
func BenchmarkEnvironmentStart(b *testing.B) {
	ctx := context.Background()
	bins, err := binaries.Ensure(ctx, binaries.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("ctrlkit", func(b *testing.B) {
		for b.Loop() {
			env, err := envtest.Start(ctx, envtest.Options{Binaries: bins})
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if err := env.Stop(); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	})
	b.Run("controller-runtime", func(b *testing.B) {
		ctrllog.SetLogger(logr.Discard()) // else it warns, with a stack, that no logger was set
		for b.Loop() {
			env := &crenvtest.Environment{BinaryAssetsDirectory: bins.Dir, ControlPlaneStartTimeout: time.Minute}
			if _, err := env.Start(); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if err := env.Stop(); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	})
}
