// Package defaultpatch computes the JSON patch that answers a defaulting
// webhook, against the raw object the API server sent.
//
// A Go type rarely round-trips an object exactly: it drops fields it does
// not know (a newer API version's, another controller's) and may add
// zero values. A patch from the raw object to the defaulted Go value
// would remove or add those. So the patch carries only what the defaulter
// changed: the difference between the Go value before and after
// defaulting, applied to the raw object by a three-way merge.
package defaultpatch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"gomodules.xyz/jsonpatch/v2"
)

// Patch returns the JSON patch (RFC 6902) that applies to raw the change
// from before to after, the object as the Go type marshalled it before and
// after defaulting, or nil if there is none. Fields of raw that before and
// after agree on are kept as raw has them, including those the Go type
// does not know. Objects are merged key by key and arrays of equal length
// element by element; an array whose length changed is replaced by after's.
func Patch(raw, before, after []byte) ([]byte, error) {
	if bytes.Equal(before, after) {
		return nil, nil
	}
	var r, b, a any
	for _, d := range []struct {
		name string
		data []byte
		into *any
	}{{"object", raw, &r}, {"object before defaulting", before, &b}, {"object after defaulting", after, &a}} {
		if err := decode(d.data, d.into); err != nil {
			return nil, fmt.Errorf("decoding the %s: %w", d.name, err)
		}
	}
	merged, err := json.Marshal(merge(r, b, a))
	if err != nil {
		return nil, err
	}
	ops, err := jsonpatch.CreatePatch(raw, merged)
	if err != nil || len(ops) == 0 {
		return nil, err
	}
	return json.Marshal(ops)
}

// decode keeps numbers as written, so that a large integer is not rounded
// through a float64.
func decode(data []byte, into *any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(into)
}

// merge applies the change from b to a onto r.
func merge(r, b, a any) any {
	if reflect.DeepEqual(b, a) {
		return r
	}
	switch a := a.(type) {
	case map[string]any:
		b, bok := b.(map[string]any)
		r, rok := r.(map[string]any)
		if !bok || !rok {
			return a
		}
		out := make(map[string]any, len(r))
		for k, v := range r {
			out[k] = v
		}
		for k := range b {
			if _, kept := a[k]; !kept {
				delete(out, k)
			}
		}
		for k, av := range a {
			bv, inB := b[k]
			rv, inR := r[k]
			switch {
			case !inB || !inR:
				// New to the Go value, or dropped by the raw object
				// (an omitted zero value): the defaulter's value.
				if !inB || !reflect.DeepEqual(bv, av) {
					out[k] = av
				}
			default:
				out[k] = merge(rv, bv, av)
			}
		}
		return out
	case []any:
		b, bok := b.([]any)
		r, rok := r.([]any)
		if !bok || !rok || len(a) != len(b) || len(b) != len(r) {
			return a
		}
		out := make([]any, len(a))
		for i := range a {
			out[i] = merge(r[i], b[i], a[i])
		}
		return out
	default:
		return a
	}
}
