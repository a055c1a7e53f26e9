package handler_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/ctrlkit/ctrlkit/handler"
)

func TestPredicates(t *testing.T) {
	base := func() *corev1.Pod {
		p := pod("ns", "p", "1")
		p.Generation = 1
		p.Labels = map[string]string{"app": "web"}
		p.Annotations = map[string]string{"note": "a"}
		return p
	}
	bumped := func(f func(p *corev1.Pod)) *corev1.Pod {
		p := base()
		p.ResourceVersion = "2"
		f(p)
		return p
	}
	update := func(n *corev1.Pod) handler.Event {
		return handler.Event{Type: handler.Update, OldObject: base(), Object: n}
	}
	var (
		create     = handler.Event{Type: handler.Create, Object: base()}
		del        = handler.Event{Type: handler.Delete, Object: base()}
		resync     = handler.Event{Type: handler.Update, OldObject: base(), Object: base()}
		generation = update(bumped(func(p *corev1.Pod) { p.Generation = 2 }))
		relabel    = update(bumped(func(p *corev1.Pod) { p.Labels = map[string]string{"app": "api"} }))
		annotate   = update(bumped(func(p *corev1.Pod) { p.Annotations = nil }))
		unlabelled = handler.Event{Type: handler.Create, Object: pod("ns", "q", "1")}
	)
	selector := labels.SelectorFromSet(labels.Set{"app": "web"})
	yes := handler.PredicateFunc(func(handler.Event) bool { return true })
	no := handler.Not(yes)

	for _, tc := range []struct {
		name string
		p    handler.Predicate
		ev   handler.Event
		want bool
	}{
		{"generation: create passes", handler.GenerationChanged(), create, true},
		{"generation: delete passes", handler.GenerationChanged(), del, true},
		{"generation: bumped", handler.GenerationChanged(), generation, true},
		{"generation: labels only", handler.GenerationChanged(), relabel, false},
		{"resourceVersion: changed", handler.ResourceVersionChanged(), relabel, true},
		{"resourceVersion: resync", handler.ResourceVersionChanged(), resync, false},
		{"labels: changed", handler.LabelsChanged(), relabel, true},
		{"labels: unchanged", handler.LabelsChanged(), annotate, false},
		{"labels: create", handler.LabelsChanged(), create, true},
		{"annotations: changed", handler.AnnotationsChanged(), annotate, true},
		{"annotations: unchanged", handler.AnnotationsChanged(), relabel, false},
		{"selector: matches", handler.LabelSelector(selector), create, true},
		{"selector: no match", handler.LabelSelector(selector), unlabelled, false},
		{"selector: old matched", handler.LabelSelector(selector), relabel, true},
		{"and: all", handler.And(yes, yes), create, true},
		{"and: one refuses", handler.And(yes, no), create, false},
		{"and: empty", handler.And(), create, true},
		{"or: one allows", handler.Or(no, yes), create, true},
		{"or: none", handler.Or(no, no), create, false},
		{"or: empty", handler.Or(), create, false},
		{"not", handler.Not(no), create, true},
		{"only types: match", handler.OnlyEventTypes(handler.Create, handler.Delete), del, true},
		{"only types: other", handler.OnlyEventTypes(handler.Create, handler.Delete), relabel, false},
		{"per kind: update filtered", handler.Or(handler.OnlyEventTypes(handler.Create), handler.GenerationChanged()), relabel, false},
	} {
		if got := tc.p.Allow(tc.ev); got != tc.want {
			t.Errorf("%s: Allow = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestWithPredicatesFiltersEvents(t *testing.T) {
	q := &recordingQueue[string]{}
	h := handler.ForObject(handler.ObjectKey).
		WithPredicates(handler.ResourceVersionChanged()).
		WithPredicates(handler.LabelSelector(labels.SelectorFromSet(labels.Set{"app": "web"}))).
		EventHandler(q)
	web := pod("ns", "web", "1")
	web.Labels = map[string]string{"app": "web"}
	h.OnAdd(web, false)
	h.OnUpdate(web, web) // resync: filtered
	h.OnAdd(pod("ns", "other", "1"), false)
	got := q.take()
	if len(got) != 1 || got[0].keys[0] != "ns/web" {
		t.Errorf("adds %v, want only ns/web once", got)
	}
}

func TestEventTypeString(t *testing.T) {
	for ty, want := range map[handler.EventType]string{handler.Create: "Create", handler.Update: "Update", handler.Delete: "Delete", 0: "EventType(unknown)"} {
		if got := ty.String(); got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
}
