package main

import (
	"slices"
	"sync"
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/controller"
)

// recordingGate passes keys through a replica's shard gate and remembers
// the namespaces of the keys it admitted: the demo shows, next to who owns
// a namespace, who actually reconciled it.
type recordingGate struct {
	inner controller.Gate[string]

	mu         sync.Mutex
	namespaces map[string]bool
}

func newRecordingGate(inner controller.Gate[string]) *recordingGate {
	return &recordingGate{inner: inner, namespaces: map[string]bool{}}
}

// Admit is inner's answer; an admitted key's namespace is recorded.
func (g *recordingGate) Admit(key string) (release func(), retryAfter time.Duration, ok bool) {
	release, retryAfter, ok = g.inner.Admit(key)
	if ok {
		ns, _, err := cache.SplitMetaNamespaceKey(key)
		if err == nil {
			g.mu.Lock()
			g.namespaces[ns] = true
			g.mu.Unlock()
		}
	}
	return release, retryAfter, ok
}

// MaxReconcileTime passes on inner's bound, so that controller.New still
// checks the controller's ReconcileTimeout against the ring's lease. inner
// is always a ring's gate here; one without a bound would make every
// timeout too long.
func (g *recordingGate) MaxReconcileTime() time.Duration {
	if b, ok := g.inner.(interface{ MaxReconcileTime() time.Duration }); ok {
		return b.MaxReconcileTime()
	}
	return 0
}

// reconciled reports whether a key of namespace ns has been admitted.
func (g *recordingGate) reconciled(ns string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.namespaces[ns]
}

// reconciledBy are the IDs of the replicas whose gates admitted a key of ns.
func reconciledBy(ns string, replicas []*replica) []string {
	var ids []string
	for _, r := range replicas {
		if r.gate.reconciled(ns) {
			ids = append(ids, r.id)
		}
	}
	slices.Sort(ids)
	return ids
}
