package configrollout

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/handler"
)

func TestConfigPredicate(t *testing.T) {
	cm := func(rv string, data map[string]string, binary map[string][]byte, labels map[string]string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", ResourceVersion: rv, Labels: labels}, Data: data, BinaryData: binary}
	}
	secret := func(rv string, data map[string][]byte) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", ResourceVersion: rv}, Data: data}
	}
	base := cm("1", map[string]string{"a": "1"}, nil, nil)
	tests := []struct {
		name string
		e    handler.Event
		want bool
	}{
		{"initial list", handler.Event{Type: handler.Create, Object: base, InInitialList: true}, false},
		{"created later", handler.Event{Type: handler.Create, Object: base}, true},
		{"deleted", handler.Event{Type: handler.Delete, Object: base}, true},
		{"resync", handler.Event{Type: handler.Update, OldObject: base, Object: base}, false},
		{"labels only", handler.Event{Type: handler.Update, OldObject: base, Object: cm("2", map[string]string{"a": "1"}, nil, map[string]string{"x": "y"})}, false},
		{"data value", handler.Event{Type: handler.Update, OldObject: base, Object: cm("2", map[string]string{"a": "2"}, nil, nil)}, true},
		{"binary data added", handler.Event{Type: handler.Update, OldObject: base, Object: cm("2", map[string]string{"a": "1"}, map[string][]byte{"b": {0}}, nil)}, true},
		{"nil vs empty data", handler.Event{Type: handler.Update, OldObject: cm("1", nil, nil, nil), Object: cm("2", map[string]string{}, map[string][]byte{}, nil)}, false},
		{"secret unchanged", handler.Event{Type: handler.Update, OldObject: secret("1", map[string][]byte{"p": []byte("x")}), Object: secret("2", map[string][]byte{"p": []byte("x")})}, false},
		{"secret changed", handler.Event{Type: handler.Update, OldObject: secret("1", map[string][]byte{"p": []byte("x")}), Object: secret("2", map[string][]byte{"p": []byte("y")})}, true},
		{"unknown type", handler.Event{Type: handler.Update, OldObject: &metav1.ObjectMeta{ResourceVersion: "1"}, Object: &metav1.ObjectMeta{ResourceVersion: "2"}}, true},
	}
	p := ConfigPredicate()
	for _, tt := range tests {
		if got := p.Allow(tt.e); got != tt.want {
			t.Errorf("%s: Allow = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestDeploymentPredicate(t *testing.T) {
	d := func(rv string, generation int64, optIn bool, extra string) *appsv1.Deployment {
		o := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d", ResourceVersion: rv, Generation: generation, Annotations: map[string]string{}}}
		if optIn {
			o.Annotations[EnabledAnnotation] = "true"
		}
		if extra != "" {
			o.Annotations["extra"] = extra
		}
		return o
	}
	on := d("1", 1, true, "")
	tests := []struct {
		name string
		e    handler.Event
		want bool
	}{
		{"create opted in", handler.Event{Type: handler.Create, Object: on, InInitialList: true}, true},
		{"create not opted in", handler.Event{Type: handler.Create, Object: d("1", 1, false, "")}, false},
		{"status only", handler.Event{Type: handler.Update, OldObject: on, Object: d("2", 1, true, "")}, false},
		{"spec changed", handler.Event{Type: handler.Update, OldObject: on, Object: d("2", 2, true, "")}, true},
		{"annotation changed", handler.Event{Type: handler.Update, OldObject: on, Object: d("2", 1, true, "x")}, true},
		{"opted in now", handler.Event{Type: handler.Update, OldObject: d("1", 1, false, ""), Object: on}, true},
		{"opted out now", handler.Event{Type: handler.Update, OldObject: on, Object: d("2", 1, false, "")}, false},
		{"resync", handler.Event{Type: handler.Update, OldObject: on, Object: on}, true},
		{"deleted", handler.Event{Type: handler.Delete, Object: on}, false},
	}
	p := DeploymentPredicate()
	for _, tt := range tests {
		if got := p.Allow(tt.e); got != tt.want {
			t.Errorf("%s: Allow = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestIndexByRefs(t *testing.T) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "d", Annotations: map[string]string{EnabledAnnotation: "true"}}}
	d.Spec.Template.Spec.Containers = []corev1.Container{{EnvFrom: []corev1.EnvFromSource{
		{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "x"}}},
		{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "x"}}},
	}}}
	keys, err := indexByRefs(d)
	if err != nil || len(keys) != 2 || keys[0] != "ConfigMap/ns/x" || keys[1] != "Secret/ns/x" {
		t.Errorf("indexByRefs = %q, %v; want ConfigMap/ns/x and Secret/ns/x", keys, err)
	}
	d.Annotations = nil
	if keys, _ := indexByRefs(d); len(keys) != 0 {
		t.Errorf("indexByRefs(not opted in) = %q, want none", keys)
	}
	if keys, err := indexByRefs("not a deployment"); len(keys) != 0 || err != nil {
		t.Errorf("indexByRefs(string) = %q, %v; want nothing", keys, err)
	}
}
