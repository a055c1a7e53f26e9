package informer_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/ctrlkit/ctrlkit/handler/informer"
)

func configMapsIn(namespace string) func(kubernetes.Interface) informer.ListWatcher[*corev1.ConfigMapList] {
	return func(c kubernetes.Interface) informer.ListWatcher[*corev1.ConfigMapList] {
		return c.CoreV1().ConfigMaps(namespace)
	}
}

func TestInFactory(t *testing.T) {
	factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	lean, err := informer.InFactory(factory, &corev1.ConfigMap{}, configMapsIn(""), informer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if factory.Core().V1().ConfigMaps().Informer().GetIndexer() != lean.GetIndexer() {
		t.Error("the factory's ConfigMap informer is not the lean one")
	}
	if _, err := informer.InFactory(factory, &corev1.ConfigMap{}, configMapsIn(""), informer.Options{}); err == nil {
		t.Error("a second InFactory for the same type succeeded, want an error")
	}

	other := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	before := other.Core().V1().ConfigMaps().Informer()
	if _, err := informer.InFactory(other, &corev1.ConfigMap{}, configMapsIn(""), informer.Options{}); err == nil {
		t.Error("InFactory after the factory made its own informer succeeded, want an error")
	}
	if other.Core().V1().ConfigMaps().Informer().GetIndexer() != before.GetIndexer() {
		t.Error("a failed InFactory replaced the factory's informer")
	}
}
