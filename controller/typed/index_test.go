package typed_test

import (
	"context"
	"strings"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/controller/typed"
)

func byColor(w *Widget) []string { return []string{w.Spec.Color} }

func newUnstartedInformer(t *testing.T) *typed.Informer[*Widget] {
	t.Helper()
	c, err := typed.NewClient[*Widget](&typedConfig, widgets)
	if err != nil {
		t.Fatal(err)
	}
	return typed.NewInformer(c, typed.InformerOptions{})
}

func names(ws []*Widget) string {
	var s []string
	for _, w := range ws {
		s = append(s, w.Namespace+"/"+w.Name)
	}
	return strings.Join(s, " ")
}

func TestMatchingFieldByNamespaceInOrder(t *testing.T) {
	inf := newUnstartedInformer(t)
	if err := inf.IndexField("color", byColor); err != nil {
		t.Fatal(err)
	}
	store := inf.Informer().GetIndexer()
	for _, w := range []*Widget{widget("shop", "z", "red"), widget("other", "b", "red"), widget("shop", "a", "red"), widget("shop", "c", "blue")} {
		if err := store.Add(w); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ namespace, value, want string }{
		{"", "red", "other/b shop/a shop/z"},
		{"shop", "red", "shop/a shop/z"},
		{"other", "blue", ""},
		{"", "green", ""},
	} {
		got, err := inf.MatchingField(tc.namespace, "color", tc.value)
		if err != nil || names(got) != tc.want {
			t.Errorf("MatchingField(%q, color, %q) = %q, %v; want %q", tc.namespace, tc.value, names(got), err, tc.want)
		}
	}
	if _, err := inf.MatchingField("", "size", "1"); err == nil {
		t.Error("MatchingField on an index never added: no error")
	}
}

func TestIndexFieldRejectsBadInput(t *testing.T) {
	inf := newUnstartedInformer(t)
	if err := inf.IndexField("", byColor); err == nil {
		t.Error("IndexField with no name: no error")
	}
	if err := inf.IndexField("color", nil); err == nil {
		t.Error("IndexField with no function: no error")
	}
	if err := inf.IndexField("color", byColor); err != nil {
		t.Fatal(err)
	}
	if err := inf.IndexField("color", byColor); err == nil || !strings.Contains(err.Error(), "already") {
		t.Errorf("second IndexField(color) = %v, want an error saying the name is taken", err)
	}
	if err := inf.IndexField(cache.NamespaceIndex, byColor); err == nil {
		t.Error("IndexField over the namespace index: no error")
	}
}

func TestIndexFieldAfterStartFails(t *testing.T) {
	c, _ := newWidgetClient(t)
	inf := typed.NewInformer(c, typed.InformerOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); inf.Informer().RunWithContext(ctx) }()
	defer func() { cancel(); <-done }()
	if !cache.WaitForCacheSync(ctx.Done(), inf.Informer().HasSynced) {
		t.Fatal("informer did not sync")
	}
	err := inf.IndexField("color", byColor)
	if err == nil || !strings.Contains(err.Error(), "after the informer started") {
		t.Errorf("IndexField on a running informer = %v, want an error saying it started", err)
	}
}
