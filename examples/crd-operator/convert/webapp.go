package convert

import (
	"context"
	"strings"

	"github.com/ctrlkit/ctrlkit/controller/webhook/conversion"
	v1 "github.com/ctrlkit/ctrlkit/examples/crd-operator/api/v1"
	"github.com/ctrlkit/ctrlkit/examples/crd-operator/api/v1alpha1"
)

// WebAppConverter converts WebApps between v1alpha1 and v1, the hub. Serve
// it with conversion.NewWebhookHandler.
func WebAppConverter() (*conversion.Converter, error) {
	return conversion.NewHubSpokeConverter(v1.Kind,
		conversion.NewSpokeConverter("v1alpha1", WebAppV1ToV1alpha1, WebAppV1alpha1ToV1))
}

// WebAppV1alpha1ToV1 converts a v1alpha1 WebApp to v1.
func WebAppV1alpha1ToV1(_ context.Context, src *v1alpha1.WebApp, dst *v1.WebApp) error {
	dst.ObjectMeta = *src.ObjectMeta.DeepCopy()
	dst.Spec = v1.WebAppSpec{
		Image:         SplitImage(src.Spec.Image),
		Replicas:      copyPtr(src.Spec.Replicas),
		ContainerPort: src.Spec.Port,
	}
	dst.Status = v1.WebAppStatus{
		ObservedGeneration: src.Status.ObservedGeneration,
		Replicas:           src.Status.Replicas,
		AvailableReplicas:  src.Status.AvailableReplicas,
	}
	for _, c := range src.Status.Conditions {
		dst.Status.Conditions = append(dst.Status.Conditions, *c.DeepCopy())
	}
	return nil
}

// WebAppV1ToV1alpha1 converts a v1 WebApp to v1alpha1.
func WebAppV1ToV1alpha1(_ context.Context, src *v1.WebApp, dst *v1alpha1.WebApp) error {
	dst.ObjectMeta = *src.ObjectMeta.DeepCopy()
	dst.Spec = v1alpha1.WebAppSpec{
		Image:    src.Spec.Image.Reference(),
		Replicas: copyPtr(src.Spec.Replicas),
		Port:     src.Spec.ContainerPort,
	}
	dst.Status = v1alpha1.WebAppStatus{
		ObservedGeneration: src.Status.ObservedGeneration,
		Replicas:           src.Status.Replicas,
		AvailableReplicas:  src.Status.AvailableReplicas,
	}
	for _, c := range src.Status.Conditions {
		dst.Status.Conditions = append(dst.Status.Conditions, *c.DeepCopy())
	}
	return nil
}

// SplitImage splits a v1alpha1 image into v1's repository and tag, the
// inverse of v1.Image.Reference: at the last @ if a digest
// (algorithm:hex) follows it, else at the last colon if a tag follows it
// and no slash does (registry.example:5000/app keeps its port). Anything
// else, an image v1's schema would refuse included, stays whole in the
// repository, so that it converts back unchanged.
func SplitImage(image string) v1.Image {
	if i := strings.LastIndex(image, "@"); i >= 0 && strings.Contains(image[i+1:], ":") {
		return v1.Image{Repository: image[:i], Tag: image[i+1:]}
	}
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") && i < len(image)-1 {
		return v1.Image{Repository: image[:i], Tag: image[i+1:]}
	}
	return v1.Image{Repository: image}
}

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
