// Package conversion serves a CRD's conversion webhook: it answers
// apiextensions.k8s.io/v1 ConversionReviews for kinds whose versions are
// plain Go types, with no scheme, converting any version to any other
// through a hub version.
//
// Per group and kind, a Converter names the hub version's type and, per
// spoke version, how the spoke converts to and from the hub: two typed
// functions, which can live outside the API packages (NewSpokeConverter),
// or the spoke's own ConvertTo and ConvertFrom methods, controller-runtime's
// Convertible shape (NewConvertibleSpoke). NewWebhookHandler serves the
// Converters on a webhook.Server:
//
//	widgets, err := conversion.NewHubSpokeConverter(v1.SchemeGroupVersion.WithKind("Widget"),
//		conversion.NewSpokeConverter("v1alpha1", convert.WidgetV1ToV1alpha1, convert.WidgetV1alpha1ToV1),
//		conversion.NewConvertibleSpoke[v1.Widget, v1beta1.Widget]("v1beta1"))
//	h, err := conversion.NewWebhookHandler(conversion.Options{Registerer: registry}, widgets)
//	srv.Register("/convert", h)
//
// Package conversiontest checks in a user's tests that the conversions
// lose nothing.
//
// What the handler guarantees:
//
//   - Each object is converted from its own version (the API server sends
//     a list's objects stored at several versions in one review) to the
//     desired one: decoded into its version's type (case-sensitively;
//     fields the type does not know are dropped, as the API server prunes
//     them), converted to the hub and from the hub, and encoded.
//   - apiVersion becomes the desired one and kind stays. The metadata is
//     the object's as sent, but for labels and annotations, which the
//     conversion may change, to carry a field a version cannot hold: the
//     API server keeps no other change to the metadata.
//   - A review converts all its objects or none. A review that cannot be
//     converted gets a failed result whose message names the object (its
//     index and namespace/name) and why: an object that is no JSON object,
//     has no apiVersion or kind, is of a kind or at a version not
//     registered (the message lists those that are), does not decode into
//     its type; a desired version not registered; a conversion function's
//     error (code 500) or panic (code 500, logged with its stack). The
//     server keeps running.
//   - A request that is no ConversionReview (wrong method or content type,
//     a body that is not JSON, another kind or version, no request, a body
//     over 128 MiB) is answered with an HTTP 4xx and a message. Nothing a
//     client sends makes the handler panic.
//   - Metrics, on Options.Registerer: per kind and version pair,
//     controller_runtime_conversion_webhook_conversions_total{kind,
//     from_version,to_version,result} counts the objects converted
//     (result success or failure), and
//     controller_runtime_conversion_webhook_latency_seconds{kind,
//     from_version,to_version} times them; plus controller-runtime's
//     controller_runtime_conversion_webhook_panics_total. Unregistered
//     kinds and versions make no series.
package conversion
