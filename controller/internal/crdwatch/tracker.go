package crdwatch

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/controller/typed"
)

// Tracker is an informer of the cluster's CRDs, asked which resources
// they serve.
type Tracker struct {
	informer cache.SharedIndexInformer
}

// New returns a Tracker that lists and watches CRDs with lw (tests give a
// fake one).
func New(lw cache.ListerWatcher) *Tracker {
	return &Tracker{informer: cache.NewSharedIndexInformerWithOptions(lw, &CRD{}, cache.SharedIndexInformerOptions{
		ObjectDescription: Resource.GroupResource().String(),
	})}
}

// ForConfig returns a Tracker that lists and watches CRDs with a client of
// config: it needs list and watch on customresourcedefinitions.
func ForConfig(config *rest.Config) (*Tracker, error) {
	client, err := typed.NewClient[*CRD](config, Resource)
	if err != nil {
		return nil, err
	}
	return &Tracker{informer: typed.NewInformer(client, typed.InformerOptions{}).Informer()}, nil
}

// Run runs the informer until ctx ends, and returns once it has stopped.
// Call it once.
func (t *Tracker) Run(ctx context.Context) { t.informer.RunWithContext(ctx) }

// Synced is closed once the informer has its first list.
func (t *Tracker) Synced() <-chan struct{} { return t.informer.HasSyncedChecker().Done() }

// Missing returns the resources no CRD in the cache serves (see
// CRD.Serves), in the order given.
func (t *Tracker) Missing(resources []schema.GroupVersionResource) []schema.GroupVersionResource {
	var missing []schema.GroupVersionResource
	for _, r := range resources {
		obj, ok, err := t.informer.GetStore().GetByKey(Name(r.GroupResource()))
		if crd, isCRD := obj.(*CRD); err != nil || !ok || !isCRD || !crd.Serves(r) {
			missing = append(missing, r)
		}
	}
	return missing
}

// Notify signals changed, without blocking, whenever a CRD is added,
// changed or deleted, until remove is called. Give it a channel with a
// buffer of one: a signal pending means "look again".
func (t *Tracker) Notify(changed chan<- struct{}) (remove func(), err error) {
	signal := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	reg, err := t.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { signal() },
		UpdateFunc: func(any, any) { signal() },
		DeleteFunc: func(any) { signal() },
	})
	if err != nil {
		return nil, err
	}
	return func() { _ = t.informer.RemoveEventHandler(reg) }, nil
}
