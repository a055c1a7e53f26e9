package ring

import (
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// namespaceKeys is the default Options.Keys: the cluster's namespaces,
// each of weight 1, from an informer of the ring's own that keeps only
// their names. Every member runs it, since any may become the coordinator;
// a namespace costs a few hundred bytes.
type namespaceKeys struct {
	informer cache.SharedIndexInformer
}

func newNamespaceKeys(client kubernetes.Interface) *namespaceKeys {
	informer := coreinformers.NewNamespaceInformer(client, 0, cache.Indexers{})
	// SetTransform fails only once the informer has started.
	_ = informer.SetTransform(func(obj any) (any, error) {
		if ns, ok := obj.(*corev1.Namespace); ok {
			return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns.Name, ResourceVersion: ns.ResourceVersion}}, nil
		}
		return obj, nil
	})
	return &namespaceKeys{informer: informer}
}

// start runs the informer until ctx ends; wait returns once it has stopped.
func (n *namespaceKeys) start(ctx context.Context) (wait func()) {
	var wg sync.WaitGroup
	wg.Go(func() { n.informer.RunWithContext(ctx) })
	return wg.Wait
}

func (n *namespaceKeys) keys() ([]Key, bool) {
	if !n.informer.HasSynced() {
		return nil, false
	}
	names := n.informer.GetStore().ListKeys()
	keys := make([]Key, len(names))
	for i, name := range names {
		keys[i] = Key{Hash: KeyHash(name, ""), Weight: 1}
	}
	return keys, true
}
