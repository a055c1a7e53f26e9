// Package webhook serves Kubernetes webhooks over HTTPS.
//
// A Server serves the handlers registered on it, one per path: admission
// handlers from package admission, CRD conversion from package conversion,
// or any http.Handler.
//
//	srv, err := webhook.NewServer(webhook.Options{Registerer: registry})
//	srv.Register("/default-widget", admission.WithDefaulter[v1.Widget](defaulter))
//	srv.Register("/validate-widget", admission.WithValidator[v1.Widget](validator))
//	err = srv.Start(ctx) // until ctx ends
//
// What it guarantees:
//
//   - Every replica serves: NeedLeaderElection is false, so a manager runs
//     it on standbys too, and it needs no cache, so it can start before
//     the caches sync (the API server may call a conversion webhook while
//     answering the informers' first list).
//   - Certificates come from files or from a tls.Config. Files (CertDir,
//     default $TMPDIR/k8s-webhook-server/serving-certs, with tls.crt and
//     tls.key, as cert-manager or a mounted kubernetes.io/tls Secret
//     provide them) are read at Start, which fails if they cannot be, and
//     again on the first handshake after either file changed. A pair that
//     does not load (half written) is logged and the last good one is
//     served. A TLSConfig with a certificate is served as given; one
//     without takes the files' certificate.
//   - When Start's context ends, the Server stops accepting connections
//     and waits up to DrainTimeout (default 10s, the API server's default
//     webhook timeout) for requests in flight; requests that outlive it are
//     cut and Start returns an error saying so. A kept-alive connection is
//     not closed under a client that may be sending on it: for up to a
//     second, its next response says "Connection: close" (a GOAWAY in
//     HTTP/2), so the client closes it; the API server does not retry an
//     admission request that met a closed connection.
//   - A panic in a handler is answered with a 500 and logged with its
//     stack through the logger in Start's context (klog.FromContext); the
//     Server keeps serving.
//   - Per path, it exports controller-runtime's metrics:
//     controller_runtime_webhook_requests_total{webhook,code},
//     controller_runtime_webhook_latency_seconds{webhook} and
//     controller_runtime_webhook_requests_in_flight{webhook}, plus
//     controller_runtime_webhook_panics_total, on Options.Registerer.
//     A registry shared with controller-runtime shares the series.
//
// Kubernetes can check much without a webhook: CEL validation rules in a
// CRD, ValidatingAdmissionPolicy and MutatingAdmissionPolicy run in the API
// server. A webhook is for what they cannot express: checks that read other
// objects, defaults computed in Go, and conversion between CRD versions.
package webhook
