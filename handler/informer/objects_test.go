package informer

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// byApp indexes ConfigMaps by their "app" labels: none, one, or two values
// ("app" and "app2"), so the store's multi-value paths run.
func byApp(obj any) ([]string, error) {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return nil, fmt.Errorf("not a ConfigMap: %T", obj)
	}
	var values []string
	for _, l := range []string{"app", "app2"} {
		if v, ok := cm.Labels[l]; ok {
			values = append(values, v)
		}
	}
	return values, nil
}

// ownNamespaceIndex is cache.MetaNamespaceIndexFunc's behaviour in another
// function: the store must serve it as an ordinary index.
func ownNamespaceIndex(obj any) ([]string, error) { return cache.MetaNamespaceIndexFunc(obj) }

// storePair drives objects and client-go's ThreadSafeStore with the same
// calls.
type storePair struct {
	t       *testing.T
	ours    *objects
	theirs  cache.ThreadSafeStore
	rng     chooser
	rv      int
	indexes []string
}

// chooser makes the random choices of a storePair: a seeded generator, or
// a fuzzer's bytes.
type chooser interface{ IntN(n int) int }

// byteChooser chooses by the bytes of a fuzz input, then zeros.
type byteChooser struct{ data []byte }

func (b *byteChooser) IntN(n int) int {
	if len(b.data) == 0 {
		return 0
	}
	c := int(b.data[0]) % n
	b.data = b.data[1:]
	return c
}

func newStorePair(t *testing.T, seed uint64, indexers cache.Indexers) *storePair {
	return newStorePairWith(t, rand.New(rand.NewPCG(seed, 1)), indexers)
}

func newStorePairWith(t *testing.T, rng chooser, indexers cache.Indexers) *storePair {
	p := &storePair{
		t:      t,
		ours:   newObjects(indexers),
		theirs: cache.NewThreadSafeStore(indexers, cache.Indices{}),
		rng:    rng,
	}
	for name := range indexers {
		p.indexes = append(p.indexes, name)
	}
	return p
}

var (
	pairNamespaces = []string{"", "a", "b", "c"}
	pairApps       = []string{"x", "y", "z"}
)

func (p *storePair) randomObject() (string, *corev1.ConfigMap) {
	p.rv++
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Namespace:       pairNamespaces[p.rng.IntN(len(pairNamespaces))],
		Name:            "cm-" + strconv.Itoa(p.rng.IntN(8)),
		ResourceVersion: strconv.Itoa(p.rv),
		Labels:          map[string]string{},
	}}
	for _, l := range []string{"app", "app2"} {
		if p.rng.IntN(3) > 0 {
			cm.Labels[l] = pairApps[p.rng.IntN(len(pairApps))]
		}
	}
	k, err := keyOf(cm)
	if err != nil {
		p.t.Fatal(err)
	}
	return k, cm
}

// step applies one random call to both stores and says what it was.
func (p *storePair) step() string {
	switch op := p.rng.IntN(20); {
	case op < 6:
		k, cm := p.randomObject()
		p.ours.Add(k, cm)
		p.theirs.Add(k, cm)
		return "Add " + k
	case op < 9:
		k, cm := p.randomObject()
		p.ours.Update(k, cm)
		p.theirs.Update(k, cm)
		return "Update " + k
	case op < 13:
		k, cm := p.randomObject()
		p.ours.DeleteWithObject(k, cm)
		p.theirs.DeleteWithObject(k, cm)
		return "DeleteWithObject " + k
	case op < 17:
		k, _ := p.randomObject()
		p.ours.Delete(k)
		p.theirs.Delete(k)
		return "Delete " + k
	case op < 18:
		rv := strconv.Itoa(p.rv)
		p.ours.Bookmark(rv)
		p.theirs.Bookmark(rv)
		return "Bookmark " + rv
	default:
		items := map[string]any{}
		for range p.rng.IntN(12) {
			k, cm := p.randomObject()
			items[k] = cm
		}
		rv := strconv.Itoa(p.rv)
		// Each store takes ownership of its map.
		p.ours.Replace(cloneItems(items), rv)
		p.theirs.Replace(cloneItems(items), rv)
		return fmt.Sprintf("Replace with %d objects", len(items))
	}
}

func cloneItems(items map[string]any) map[string]any {
	c := make(map[string]any, len(items))
	for k, v := range items {
		c[k] = v
	}
	return c
}

// compare checks every read the ThreadSafeStore interface offers.
func (p *storePair) compare(after string) {
	p.t.Helper()
	diff := func(what string, ours, theirs any) {
		p.t.Helper()
		if d := cmp.Diff(theirs, ours); d != "" {
			p.t.Fatalf("after %s: %s differs from client-go's (-client-go +ours):\n%s", after, what, d)
		}
	}
	diff("ListKeys", sorted(p.ours.ListKeys()), sorted(p.theirs.ListKeys()))
	diff("List", keysOfObjects(p.t, p.ours.List()), keysOfObjects(p.t, p.theirs.List()))
	diff("LastStoreSyncResourceVersion", p.ours.LastStoreSyncResourceVersion(), p.theirs.LastStoreSyncResourceVersion())
	diff("GetIndexers names", sorted(indexerNames(p.ours.GetIndexers())), sorted(indexerNames(p.theirs.GetIndexers())))
	for _, ns := range pairNamespaces {
		for n := range 8 {
			k := "cm-" + strconv.Itoa(n)
			if ns != "" {
				k = ns + "/" + k
			}
			o, oOK := p.ours.Get(k)
			c, cOK := p.theirs.Get(k)
			if oOK != cOK || o != c {
				p.t.Fatalf("after %s: Get(%q) = %v, %v; client-go %v, %v", after, k, o, oOK, c, cOK)
			}
		}
	}
	for _, name := range append(slices.Clone(p.indexes), "missing") {
		diff("ListIndexFuncValues("+name+")", sorted(p.ours.ListIndexFuncValues(name)), sorted(p.theirs.ListIndexFuncValues(name)))
		for _, v := range append(slices.Clone(pairNamespaces), pairApps...) {
			ok, oErr := p.ours.IndexKeys(name, v)
			ck, cErr := p.theirs.IndexKeys(name, v)
			diff("IndexKeys("+name+", "+v+")", outcome(ok, oErr), outcome(ck, cErr))
			ob, oErr := p.ours.ByIndex(name, v)
			cb, cErr := p.theirs.ByIndex(name, v)
			diff("ByIndex("+name+", "+v+")", outcome(keysOfObjects(p.t, ob), oErr), outcome(keysOfObjects(p.t, cb), cErr))
		}
		for range 3 {
			_, probe := p.randomObject()
			oi, oErr := p.ours.Index(name, probe)
			ci, cErr := p.theirs.Index(name, probe)
			diff("Index("+name+", probe)", outcome(keysOfObjects(p.t, oi), oErr), outcome(keysOfObjects(p.t, ci), cErr))
		}
	}
}

type result struct {
	Keys []string
	Err  string
}

func outcome(keys []string, err error) result {
	r := result{Keys: keys}
	if err != nil {
		r.Err = err.Error()
	}
	return r
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func indexerNames(ix cache.Indexers) []string {
	var names []string
	for n := range ix {
		names = append(names, n)
	}
	return names
}

func keysOfObjects(t *testing.T, objs []any) []string {
	t.Helper()
	keys := make([]string, 0, len(objs))
	for _, o := range objs {
		k, err := keyOf(o)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TestObjectsBehaveAsClientGosStore runs random calls against objects and
// client-go's ThreadSafeStore and compares every read after each call, with
// the namespace index served natively and, under another function, as an
// ordinary index.
func TestObjectsBehaveAsClientGosStore(t *testing.T) {
	for _, tc := range []struct {
		name     string
		indexers cache.Indexers
		native   bool
	}{
		{"native namespace index", cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc, "app": byApp}, true},
		{"namespace index under another function", cache.Indexers{cache.NamespaceIndex: ownNamespaceIndex, "app": byApp}, false},
		{"no indexes", cache.Indexers{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(20) {
				p := newStorePair(t, seed, tc.indexers)
				if p.ours.nativeNamespaceIndex != tc.native {
					t.Fatalf("nativeNamespaceIndex = %v, want %v", p.ours.nativeNamespaceIndex, tc.native)
				}
				var log []string
				for range 150 {
					log = append(log, p.step())
					p.compare(fmt.Sprintf("seed %d, calls %s", seed, strings.Join(log[max(0, len(log)-3):], "; ")))
				}
			}
		})
	}
}

// FuzzObjectsBehaveAsClientGosStore drives the comparison with a fuzzer's
// bytes: the first picks the indexers, the rest the calls.
func FuzzObjectsBehaveAsClientGosStore(f *testing.F) {
	f.Add([]byte{0, 0, 1, 1, 0, 5, 2, 1, 1, 14, 0, 0, 19, 3})
	f.Add([]byte{1, 3, 2, 2, 1, 0, 16, 1, 7, 0, 13, 1, 7, 0, 19, 0})
	f.Add([]byte{2, 0, 3, 0, 0, 1, 9, 3, 0, 2, 15, 3, 0})
	indexerSets := []cache.Indexers{
		{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc, "app": byApp},
		{cache.NamespaceIndex: ownNamespaceIndex, "app": byApp},
		{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || len(data) > 512 {
			return
		}
		choose := &byteChooser{data: data[1:]}
		p := newStorePairWith(t, choose, indexerSets[int(data[0])%len(indexerSets)])
		for len(choose.data) > 0 {
			p.compare(p.step())
		}
	})
}

// TestObjectsAddIndexersIndexesStoredObjects: indexes added to a filled
// store answer for the objects already in it, as client-go's do, and a
// name already taken is refused without adding anything.
func TestObjectsAddIndexersIndexesStoredObjects(t *testing.T) {
	p := newStorePair(t, 7, cache.Indexers{})
	for range 40 {
		p.step()
	}
	added := cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc, "app": byApp}
	if err := p.ours.AddIndexers(added); err != nil {
		t.Fatal(err)
	}
	if err := p.theirs.AddIndexers(added); err != nil {
		t.Fatal(err)
	}
	p.indexes = []string{cache.NamespaceIndex, "app"}
	if !p.ours.nativeNamespaceIndex {
		t.Fatal("the namespace index added later is not served natively")
	}
	p.compare("AddIndexers")
	for range 40 {
		p.compare(p.step())
	}

	err := p.ours.AddIndexers(cache.Indexers{"app": byApp, "other": byApp})
	if err == nil || !strings.Contains(err.Error(), "indexer conflict") {
		t.Fatalf("AddIndexers of a taken name: err = %v, want an indexer conflict", err)
	}
	if _, ok := p.ours.GetIndexers()["other"]; ok {
		t.Error("a refused AddIndexers added an index")
	}
}

// TestObjectsDropEmptyNamespaces: a namespace whose last object goes is
// forgotten, so namespaces that come and go do not pile up.
func TestObjectsDropEmptyNamespaces(t *testing.T) {
	o := newObjects(cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for i := range 100 {
		k := fmt.Sprintf("ns-%d/cm", i)
		o.Add(k, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: fmt.Sprintf("ns-%d", i), Name: "cm"}})
		o.Delete(k)
	}
	if n := len(o.byNamespace); n != 0 {
		t.Errorf("%d namespaces kept after all their objects went", n)
	}
	if got := o.ListIndexFuncValues(cache.NamespaceIndex); len(got) != 0 {
		t.Errorf("ListIndexFuncValues = %v, want none", got)
	}
}

// TestObjectsIndexFuncErrorPanicsAsClientGo: an index function failing on
// a stored object panics with the key and index named, as client-go's
// store does, rather than leaving the index silently wrong.
func TestObjectsIndexFuncErrorPanicsAsClientGo(t *testing.T) {
	o := newObjects(cache.Indexers{"app": byApp})
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(fmt.Sprint(r), `key "ns/pod" on index "app"`) {
			t.Fatalf("recovered %v, want a panic naming the key and the index", r)
		}
	}()
	o.Add("ns/pod", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pod"}})
}
