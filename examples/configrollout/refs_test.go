package configrollout

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

func TestRefsOfFindsEveryKindOfUse(t *testing.T) {
	spec := &corev1.PodSpec{
		Volumes: []corev1.Volume{
			{Name: "a", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "vol-cm"}}}},
			{Name: "b", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "vol-secret"}}},
			{Name: "c", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "proj-cm"}}},
				{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "proj-secret"}}},
				{DownwardAPI: &corev1.DownwardAPIProjection{}},
			}}}},
			{Name: "d", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		},
		InitContainers: []corev1.Container{{
			EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "init-cm"}}}},
		}},
		Containers: []corev1.Container{{
			EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "envfrom-secret"}}}},
			Env: []corev1.EnvVar{
				{Name: "PLAIN", Value: "x"},
				{Name: "CM", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "env-cm"}, Key: "k"}}},
				{Name: "SEC", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "env-secret"}, Key: "k"}}},
				{Name: "FIELD", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
			},
		}},
		EphemeralContainers: []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
			EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "debug-cm"}}}},
		}}},
		ImagePullSecrets: []corev1.LocalObjectReference{{Name: "pull-secret"}},
	}
	want := []Ref{
		{Kind: KindConfigMap, Name: "debug-cm"},
		{Kind: KindConfigMap, Name: "env-cm"},
		{Kind: KindConfigMap, Name: "init-cm"},
		{Kind: KindConfigMap, Name: "proj-cm"},
		{Kind: KindConfigMap, Name: "vol-cm"},
		{Kind: KindSecret, Name: "env-secret"},
		{Kind: KindSecret, Name: "envfrom-secret"},
		{Kind: KindSecret, Name: "proj-secret"},
		{Kind: KindSecret, Name: "vol-secret"},
	}
	if diff := cmp.Diff(want, RefsOf(spec)); diff != "" {
		t.Errorf("RefsOf (-want +got):\n%s", diff)
	}
}

func TestRefsOfIsOptionalOnlyIfEveryUseIs(t *testing.T) {
	optionalVolume := func(name string) corev1.Volume {
		return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: name}, Optional: ptr.To(true)}}}
	}
	requiredEnv := func(name string) corev1.EnvFromSource {
		return corev1.EnvFromSource{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}
	}
	spec := &corev1.PodSpec{
		Volumes:    []corev1.Volume{optionalVolume("both"), optionalVolume("only-optional")},
		Containers: []corev1.Container{{EnvFrom: []corev1.EnvFromSource{requiredEnv("both")}}},
	}
	want := []Ref{
		{Kind: KindConfigMap, Name: "both", Optional: false},
		{Kind: KindConfigMap, Name: "only-optional", Optional: true},
	}
	if diff := cmp.Diff(want, RefsOf(spec)); diff != "" {
		t.Errorf("RefsOf (-want +got):\n%s", diff)
	}
}

func TestRefsOfSameNameDifferentKindsAreDistinct(t *testing.T) {
	spec := &corev1.PodSpec{Containers: []corev1.Container{{EnvFrom: []corev1.EnvFromSource{
		{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "app"}}},
		{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "app"}}},
		{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "app"}}},
	}}}}
	want := []Ref{{Kind: KindConfigMap, Name: "app"}, {Kind: KindSecret, Name: "app"}}
	if diff := cmp.Diff(want, RefsOf(spec)); diff != "" {
		t.Errorf("RefsOf (-want +got):\n%s", diff)
	}
}

func TestRefsOfEmpty(t *testing.T) {
	if got := RefsOf(nil); got != nil {
		t.Errorf("RefsOf(nil) = %v, want nil", got)
	}
	if got := RefsOf(&corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}); got != nil {
		t.Errorf("RefsOf(no refs) = %v, want nil", got)
	}
}

func TestRefString(t *testing.T) {
	for ref, want := range map[Ref]string{
		{Kind: KindConfigMap, Name: "a"}: "configmap/a",
		{Kind: KindSecret, Name: "b"}:    "secret/b",
	} {
		if got := ref.String(); got != want {
			t.Errorf("%#v.String() = %q, want %q", ref, got, want)
		}
	}
}
