package configrollout

import (
	"regexp"
	"testing"
)

func content(kind Kind, name string, kv ...string) Content {
	data := map[string][]byte{}
	for i := 0; i+1 < len(kv); i += 2 {
		data[kv[i]] = []byte(kv[i+1])
	}
	return Content{Ref: Ref{Kind: kind, Name: name}, Found: true, Data: data}
}

func TestHashChangesWithData(t *testing.T) {
	base := []Content{content(KindConfigMap, "app", "a", "1", "b", "2"), content(KindSecret, "db", "password", "x")}
	h := Hash(base)
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(h) {
		t.Fatalf("Hash = %q, want 32 hex digits", h)
	}
	differs := map[string][]Content{
		"value changed":     {content(KindConfigMap, "app", "a", "1", "b", "3"), base[1]},
		"key added":         {content(KindConfigMap, "app", "a", "1", "b", "2", "c", ""), base[1]},
		"key renamed":       {content(KindConfigMap, "app", "a", "1", "c", "2"), base[1]},
		"secret changed":    {base[0], content(KindSecret, "db", "password", "y")},
		"object gone":       {base[0], {Ref: base[1].Ref}},
		"object renamed":    {base[0], content(KindSecret, "db2", "password", "x")},
		"kind changed":      {base[0], content(KindConfigMap, "db", "password", "x")},
		"reference dropped": {base[0]},
		"fields shifted":    {content(KindConfigMap, "app", "a", "12", "b", ""), base[1]},
	}
	for name, contents := range differs {
		if got := Hash(contents); got == h {
			t.Errorf("%s: hash unchanged (%s)", name, got)
		}
	}
}

func TestHashIgnoresOrderAndOptionality(t *testing.T) {
	a := content(KindConfigMap, "app", "a", "1")
	b := content(KindSecret, "db", "password", "x")
	optionalB := b
	optionalB.Ref.Optional = true
	if Hash([]Content{a, b}) != Hash([]Content{b, a}) {
		t.Error("hash depends on the order of contents")
	}
	if Hash([]Content{a, b}) != Hash([]Content{a, optionalB}) {
		t.Error("hash depends on whether a reference is optional")
	}
}

func TestHashAbsentDiffersFromEmpty(t *testing.T) {
	ref := Ref{Kind: KindConfigMap, Name: "app"}
	if Hash([]Content{{Ref: ref}}) == Hash([]Content{{Ref: ref, Found: true}}) {
		t.Error("an absent object hashes like an empty one: creating an empty ConfigMap would not roll")
	}
}
