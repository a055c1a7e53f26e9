package controller_test

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/controllertest"
	"github.com/ctrlkit/ctrlkit/handler"
)

func configMap(ns, name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
}

// newConfigMapController builds a controller of string keys watching the
// env's ConfigMaps, with r recording its calls.
func newConfigMapController(t *testing.T, env *controllertest.Env, r *controllertest.Recorder[string], opts controller.Options[string]) *controller.Controller[string] {
	t.Helper()
	c, err := controller.New("configmaps", controller.Reconciler[string](r), opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if err := c.Watch(env.Informers.Core().V1().ConfigMaps().Informer(), handler.ForObject(handler.ObjectKey)); err != nil {
		t.Fatalf("Watch: %v", err)
	}
	return c
}

func sorted[K interface{ ~string }](keys []K) []K {
	keys = slices.Clone(keys)
	slices.Sort(keys)
	return keys
}

func create(t *testing.T, env *controllertest.Env, cm *corev1.ConfigMap) {
	t.Helper()
	if _, err := env.Client.CoreV1().ConfigMaps(cm.Namespace).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create %s/%s: %v", cm.Namespace, cm.Name, err)
	}
}
