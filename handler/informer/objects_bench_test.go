package informer

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// BenchmarkStoreAdd fills a store with 200,000 ConfigMaps in 10
// namespaces, with the namespace index every lister uses: client-go's
// thread-safe store against the informer's, side by side.
//
//	go test -run '^$' -bench StoreAdd -benchtime=5x ./handler/informer
func BenchmarkStoreAdd(b *testing.B) {
	const n = 200_000
	objs := make([]*corev1.ConfigMap, n)
	keys := make([]string, n)
	for i := range objs {
		objs[i] = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Namespace: fmt.Sprintf("ns-%d", i%10), Name: fmt.Sprintf("cm-%d", i), ResourceVersion: fmt.Sprint(i + 2),
		}}
		keys[i] = objs[i].Namespace + "/" + objs[i].Name
	}
	indexers := cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}
	for _, store := range []struct {
		name string
		make func() cache.ThreadSafeStore
	}{
		{"client-go", func() cache.ThreadSafeStore { return cache.NewThreadSafeStore(indexers, cache.Indices{}) }},
		{"informer", func() cache.ThreadSafeStore { return newObjects(indexers) }},
	} {
		b.Run(store.name, func(b *testing.B) {
			for b.Loop() {
				s := store.make()
				for i, obj := range objs {
					s.Add(keys[i], obj)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/add")
		})
	}
}
