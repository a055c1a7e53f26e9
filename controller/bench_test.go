package controller_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// BenchmarkProcess measures the controller's own cost per key (add, take,
// reconcile with a no-op reconciler, apply the result) on one goroutine,
// beside the same steps done by hand on a bare queue. The end-to-end
// comparison with informers and controller-runtime lives in
// internal/benchmarks.
func BenchmarkProcess(b *testing.B) {
	keys := make([]string, 1024)
	for i := range keys {
		keys[i] = "ns/" + strconv.Itoa(i)
	}
	noop := controller.ReconcilerFunc[string](func(context.Context, string) (controller.Result, error) {
		return controller.Result{}, nil
	})
	ctx := context.Background()

	b.Run("bare-queue", func(b *testing.B) {
		q := workqueue.New(workqueue.Options[string]{})
		defer q.ShutDown()
		b.ReportAllocs()
		for i := range b.N {
			q.Add(keys[i%len(keys)])
			k, _ := q.Get()
			q.Forget(k)
			q.Done(k)
		}
	})
	for _, tc := range []struct {
		name string
		opts controller.Options[string]
	}{
		{"controller", controller.Options[string]{Logger: logr.Discard()}},
		{"controller-metrics", controller.Options[string]{Logger: logr.Discard(), Registry: prometheus.NewRegistry()}},
		// Tracing on, spans sampled and dropped: the cost of the spans
		// themselves, without an exporter's.
		{"controller-tracing", controller.Options[string]{Logger: logr.Discard(), TracerProvider: sdktrace.NewTracerProvider()}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			c, err := controller.New("bench", noop, tc.opts)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Queue().ShutDown()
			b.ReportAllocs()
			for i := range b.N {
				c.Queue().Add(keys[i%len(keys)])
				c.ProcessNextReady(ctx)
			}
		})
	}
}
