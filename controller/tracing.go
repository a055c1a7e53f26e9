package controller

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// tracerName is the instrumentation scope of the controller's spans.
const tracerName = "github.com/ctrlkit/ctrlkit/controller"

// Attributes of a reconcile's span.
const (
	// AttrController is the controller's name (also the span's name).
	AttrController = attribute.Key("ctrlkit.controller")
	// AttrKey is the key reconciled, as fmt prints it.
	AttrKey = attribute.Key("ctrlkit.key")
	// AttrReconcileID is the reconcile's ID, as in its log lines.
	AttrReconcileID = attribute.Key("ctrlkit.reconcile_id")
	// AttrQueueWait is how long the key was ready in the queue before a
	// worker took it, in seconds (workqueue_queue_duration_seconds).
	AttrQueueWait = attribute.Key("ctrlkit.queue_wait_seconds")
	// AttrPriority is the queue priority the key was served at.
	AttrPriority = attribute.Key("ctrlkit.priority")
	// AttrResult is the outcome: one of the Result* values.
	AttrResult = attribute.Key("ctrlkit.result")
	// AttrRequeueAfter is Result.RequeueAfter in seconds, when it applies.
	AttrRequeueAfter = attribute.Key("ctrlkit.requeue_after_seconds")
)

// startSpan starts the span of one reconcile of key, in ctx, if the
// controller traces; else it returns ctx and nil.
func (c *Controller[K]) startSpan(ctx context.Context, key K, id string, priority int, waited time.Duration) (context.Context, trace.Span) {
	tracer := c.tracer.Load()
	if tracer == nil {
		return ctx, nil
	}
	var k string
	if s, ok := any(key).(string); ok {
		k = s
	} else {
		k = fmt.Sprint(key)
	}
	return (*tracer).Start(ctx, c.name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(
		AttrController.String(c.name),
		AttrKey.String(k),
		AttrReconcileID.String(id),
		AttrPriority.Int(priority),
		AttrQueueWait.Float64(waited.Seconds()),
	))
}

// endSpan records the reconcile's outcome on span and ends it; span nil
// means the controller does not trace.
func endSpan(span trace.Span, o outcome, result Result, err error) {
	if span == nil {
		return
	}
	span.SetAttributes(AttrResult.String(string(o)))
	if o == ResultRequeueAfter {
		span.SetAttributes(AttrRequeueAfter.Float64(result.RequeueAfter.Seconds()))
	}
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// useTracerProvider makes the controller trace with tp's tracer.
func (c *Controller[K]) useTracerProvider(tp trace.TracerProvider) {
	tracer := tp.Tracer(tracerName)
	c.tracer.Store(&tracer)
}
