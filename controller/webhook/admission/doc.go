// Package admission answers admission.k8s.io/v1 AdmissionReviews for any
// Go type T, built-in or custom, with no scheme: T is decoded from the
// request's JSON as encoding/json would (case-sensitively, as the API
// server decodes).
//
// A Defaulter[T] sets defaults; a Validator[T] checks creates, updates
// (with the old object) and deletes (with the object being deleted).
// DefaulterFunc and ValidatorFuncs adapt plain functions. WithDefaulter
// and WithValidator turn them into http.Handlers to register on a
// webhook.Server:
//
//	srv.Register("/default-widget", admission.WithDefaulter[v1.Widget](
//		admission.DefaulterFunc[v1.Widget](func(ctx context.Context, w *v1.Widget) error {
//			if w.Spec.Replicas == nil {
//				w.Spec.Replicas = ptr.To[int32](1)
//			}
//			return nil
//		})))
//
// What the handlers guarantee:
//
//   - A defaulter is answered with a JSON patch of what Default changed,
//     computed against the object the API server sent: fields T does not
//     know (a newer version's, another controller's) are kept, and a
//     Default that changes nothing sends no patch. An array whose length
//     Default changes is replaced whole.
//   - Warnings are passed on, on an allowed request and on a denied one.
//   - RequestFromContext gives a handler the AdmissionRequest: operation,
//     user, and DryRun, during which a handler must have no side effects.
//   - An error denies: an API status error (apierrors.New...) is sent as
//     it is; a *field.Error or field.ErrorList.ToAggregate() becomes an
//     Invalid status (422) with one cause per field, as kubectl shows them;
//     any other error is a 403 with its message.
//   - A request that is not an AdmissionReview (wrong method or content
//     type, a body that is not JSON, another kind or version, no request,
//     a body over 7 MiB) is answered with an HTTP 4xx and a message. A
//     review that cannot be admitted (no uid, no object, an object that is
//     not a T, an operation a validator does not handle) is denied with a
//     400 in the review. Nothing a client sends makes a handler panic.
//   - A dry-run request whose object carries the annotation
//     webhook-probe.ctrlkit.dev/nonce is a probe (envtest's
//     InstallWebhooks, certs.SelfManagedOptions.DryRunProbe): it is
//     allowed with a warning naming the nonce and the path, which the API
//     server passes back as the proof that it reached the handler, and
//     Default or Validate is not called.
package admission
