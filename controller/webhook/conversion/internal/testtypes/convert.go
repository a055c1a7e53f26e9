package testtypes

import (
	"context"
	"errors"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/randfill"

	"github.com/ctrlkit/ctrlkit/controller/webhook/conversion"
)

// V1alpha1ToHub converts v1alpha1 to the hub.
func V1alpha1ToHub(_ context.Context, src *WidgetV1alpha1, dst *WidgetV1) error {
	dst.ObjectMeta = *src.ObjectMeta.DeepCopy()
	if v, ok := dst.Annotations[PausedAnnotation]; ok {
		dst.Spec.Paused = v == "true"
		delete(dst.Annotations, PausedAnnotation)
	}
	dst.Spec.Replicas = src.Spec.Size
	dst.Spec.Image = SplitImage(src.Spec.Image)
	dst.Spec.Tags = src.Spec.Tags
	dst.Status = *src.Status.DeepCopy()
	return nil
}

// HubToV1alpha1 converts the hub to v1alpha1.
func HubToV1alpha1(_ context.Context, src *WidgetV1, dst *WidgetV1alpha1) error {
	dst.ObjectMeta = *src.ObjectMeta.DeepCopy()
	if src.Spec.Paused {
		if dst.Annotations == nil {
			dst.Annotations = map[string]string{}
		}
		dst.Annotations[PausedAnnotation] = "true"
	}
	dst.Spec.Size = src.Spec.Replicas
	dst.Spec.Image = JoinImage(src.Spec.Image)
	dst.Spec.Tags = src.Spec.Tags
	dst.Status = *src.Status.DeepCopy()
	return nil
}

// SplitImage splits repository[:tag].
func SplitImage(image string) ImageRef {
	repo, tag, _ := strings.Cut(image, ":")
	return ImageRef{Repository: repo, Tag: tag}
}

// JoinImage joins an image as repository[:tag].
func JoinImage(ref ImageRef) string {
	if ref.Tag == "" {
		return ref.Repository
	}
	return ref.Repository + ":" + ref.Tag
}

// ConvertTo converts v1beta1 to the hub.
func (w *WidgetV1beta1) ConvertTo(hub conversion.Hub) error {
	dst, ok := hub.(*WidgetV1)
	if !ok {
		return errors.New("the hub is no *WidgetV1")
	}
	dst.ObjectMeta = *w.ObjectMeta.DeepCopy()
	dst.Spec = *w.Spec.DeepCopy()
	dst.Status = *w.Status.DeepCopy()
	return nil
}

// ConvertFrom converts the hub to v1beta1.
func (w *WidgetV1beta1) ConvertFrom(hub conversion.Hub) error {
	src, ok := hub.(*WidgetV1)
	if !ok {
		return errors.New("the hub is no *WidgetV1")
	}
	w.ObjectMeta = *src.ObjectMeta.DeepCopy()
	w.Spec = *src.Spec.DeepCopy()
	w.Status = *src.Status.DeepCopy()
	return nil
}

// DeepCopy copies s.
func (s *WidgetV1Spec) DeepCopy() *WidgetV1Spec {
	out := *s
	if s.Tags != nil {
		out.Tags = append([]string{}, s.Tags...)
	}
	return &out
}

// DeepCopy copies s.
func (s *WidgetStatus) DeepCopy() *WidgetStatus {
	out := *s
	if s.Conditions != nil {
		out.Conditions = make([]metav1.Condition, len(s.Conditions))
		for i := range s.Conditions {
			s.Conditions[i].DeepCopyInto(&out.Conditions[i])
		}
	}
	return &out
}

// Converter converts the three versions.
func Converter() (*conversion.Converter, error) {
	return conversion.NewHubSpokeConverter(Hub,
		conversion.NewSpokeConverter("v1alpha1", HubToV1alpha1, V1alpha1ToHub),
		conversion.NewConvertibleSpoke[WidgetV1, WidgetV1beta1]("v1beta1"),
	)
}

// FillFuncs fill what the conversions need to be lossless: an image's
// repository and tag hold no colon, and a v1alpha1 image with a colon has
// a tag after it.
var FillFuncs = []any{
	func(ref *ImageRef, c randfill.Continue) {
		ref.Repository = noColon(c.String(0))
		ref.Tag = noColon(c.String(0))
	},
	func(s *WidgetV1alpha1Spec, c randfill.Continue) {
		c.FillNoCustom(s)
		var ref ImageRef
		c.Fill(&ref)
		s.Image = JoinImage(ref)
	},
}

func noColon(s string) string { return strings.ReplaceAll(s, ":", "") }
