package informer

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// InFactory makes factory's informer for objects of example's type a lean
// Informer, so that the factory's typed informer and lister for that type,
// and everything given them, use it. resource returns the typed client of
// the resource, e.g.
//
//	func(c kubernetes.Interface) informer.ListWatcher[*corev1.PodList] { return c.CoreV1().Pods(namespace) }
//
// It must restrict the namespace and list options the way the factory was
// told to (informers.WithNamespace, WithTweakListOptions): the factory does
// not pass them on. A zero opts.ResyncPeriod takes the factory's.
//
// Call it before anything asks factory for an informer of that type; if
// something already has, it returns an error and changes nothing.
func InFactory[L runtime.Object](factory informers.SharedInformerFactory, example runtime.Object, resource func(kubernetes.Interface) ListWatcher[L], opts Options) (*Informer, error) {
	var made *Informer
	factory.InformerFor(example, func(client kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		o := opts
		if o.ResyncPeriod == 0 {
			o.ResyncPeriod = resync
		}
		made = New(ListWatch(resource(client), client), example, o)
		return made
	})
	if made == nil {
		return nil, fmt.Errorf("informer: the factory already has an informer for %T", example)
	}
	return made, nil
}
