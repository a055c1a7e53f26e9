// Package tracing carries a manager's OpenTelemetry TracerProvider to the
// controllers it runs, in their Run context, as the manager's logger is.
package tracing

import (
	"context"

	"go.opentelemetry.io/otel/trace"
)

type providerKey struct{}

// WithProvider returns ctx carrying tp.
func WithProvider(ctx context.Context, tp trace.TracerProvider) context.Context {
	return context.WithValue(ctx, providerKey{}, tp)
}

// ProviderFrom returns the provider ctx carries, or nil.
func ProviderFrom(ctx context.Context) trace.TracerProvider {
	tp, _ := ctx.Value(providerKey{}).(trace.TracerProvider)
	return tp
}
