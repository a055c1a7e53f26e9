// Package otlptracing is the --otlp-endpoint flag of ctrlkit's example
// binaries: with an endpoint, an OpenTelemetry SDK TracerProvider that
// batches the spans of the manager's reconciles (and, through the client's
// otelhttp transport, of the API requests made in them) and exports them
// over OTLP/HTTP; without one, nothing is built and nothing is traced.
//
// It is the examples', not managerflags': the OTLP exporter links gRPC and
// its generated protobufs (about sixty packages) into the binary, and which
// exporter, sampler and resource a process uses is its operator's choice.
// ctrlkit's contract is manager.Options.TracerProvider; this package is one
// way to fill it.
package otlptracing
