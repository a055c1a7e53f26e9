package controller_test

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/ctrlkit/ctrlkit/controller"
)

// With a TracerProvider, each reconcile is a span named after the
// controller. A real program gives an SDK provider with an exporter, for
// example otlptracehttp's, and shuts it down on exit.
func ExampleOptions_tracerProvider() {
	recorder := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder))
	defer func() { _ = tp.Shutdown(context.Background()) }()

	r := controller.ReconcilerFunc[string](func(context.Context, string) (controller.Result, error) {
		return controller.Result{}, nil
	})
	c, err := controller.New("configmaps", r, controller.Options[string]{TracerProvider: tp, Logger: logr.Discard()})
	if err != nil {
		panic(err)
	}
	defer c.Queue().ShutDown()
	c.Queue().Add("default/settings")
	c.ProcessNextReady(context.Background())

	for _, span := range recorder.Ended() {
		fmt.Println(span.Name())
		for _, kv := range span.Attributes() {
			if kv.Key == controller.AttrKey || kv.Key == controller.AttrResult {
				fmt.Println(" ", kv.Key, "=", kv.Value.AsString())
			}
		}
	}
	// Output:
	// configmaps
	//   ctrlkit.key = default/settings
	//   ctrlkit.result = success
}
