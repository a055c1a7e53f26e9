package manager_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/go-logr/logr/funcr"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/manager"
)

// The Manager's TracerProvider reaches the controllers it runs: their
// reconciles become spans without a provider of their own.
func TestManagerPassesTracerProvider(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		quiet := funcr.New(func(string, string) {}, funcr.Options{})
		recorder := tracetest.NewSpanRecorder()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder))
		reconciled := make(chan struct{})
		ctrl, err := controller.New("traced", controller.ReconcilerFunc[string](func(context.Context, string) (controller.Result, error) {
			close(reconciled)
			return controller.Result{}, nil
		}), controller.Options[string]{Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		mgr, err := manager.New(manager.Options{Logger: quiet, TracerProvider: tp})
		if err != nil {
			t.Fatal(err)
		}
		if mgr.TracerProvider() != tp {
			t.Errorf("Manager.TracerProvider() is not Options.TracerProvider")
		}
		if err := mgr.Add(ctrl); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- mgr.Run(ctx) }()
		ctrl.Queue().Add("key")
		<-reconciled
		synctest.Wait()
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		spans := recorder.Ended()
		if len(spans) != 1 || spans[0].Name() != "traced" {
			t.Errorf("spans %v, want the controller's one reconcile span", spans)
		}
	})
}
