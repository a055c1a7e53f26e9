// Package convert converts the WebApp's versions: v1, the hub, and
// v1alpha1, a spoke, with two typed functions registered with
// conversion.NewHubSpokeConverter. They live here, outside the API
// packages, so that those stay plain types.
//
// What changed: v1alpha1's spec.port is v1's spec.containerPort, and
// v1alpha1's spec.image, one string, is v1's spec.image.repository and
// spec.image.tag. The conversions lose nothing either way (the test holds
// them to it with conversiontest.RoundTrip): v1alpha1 → v1 splits only what
// v1 → v1alpha1 joins back the same, and every field of v1 has a place in
// v1alpha1, so no annotation carries one.
package convert
