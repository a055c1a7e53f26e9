package conversiontest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// compare holds nil and empty slices and maps equal, as apimachinery's
// semantic equality does, and reads unexported fields (of types without
// an Equal method) rather than panicking on them.
var compare = cmp.Options{cmpopts.EquateEmpty(), cmp.Exporter(func(reflect.Type) bool { return true })}

// firstDiff compares x and y and returns the JSON path of the first field
// (in the order of the types' fields) that differs, with its two values
// as JSON; ok is true if nothing differs.
func firstDiff(x, y any) (path, vx, vy string, ok bool) {
	var r firstReporter
	cmp.Equal(x, y, compare, cmp.Reporter(&r))
	return r.path, r.vx, r.vy, !r.found
}

// firstReporter spells the first difference cmp reports. It spells it
// when reported: cmp reuses its path steps afterwards.
type firstReporter struct {
	steps  cmp.Path
	found  bool
	path   string
	vx, vy string
}

func (r *firstReporter) PushStep(s cmp.PathStep) { r.steps = append(r.steps, s) }
func (r *firstReporter) PopStep()                { r.steps = r.steps[:len(r.steps)-1] }
func (r *firstReporter) Report(res cmp.Result) {
	if res.Equal() || r.found {
		return
	}
	r.found = true
	a, b := r.steps.Last().Values()
	r.path, r.vx, r.vy = jsonPath(r.steps), show(a), show(b)
}

// jsonPath spells p as JSON names it: spec.image.tag,
// metadata.annotations[example.com/paused], status.conditions[2].reason.
func jsonPath(p cmp.Path) string {
	var b strings.Builder
	for i, step := range p {
		switch s := step.(type) {
		case cmp.StructField:
			parent := p[i-1].Type()
			for parent.Kind() == reflect.Pointer {
				parent = parent.Elem()
			}
			name, inline := jsonName(parent.Field(s.Index()))
			if inline {
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(name)
		case cmp.SliceIndex:
			ix, iy := s.SplitKeys()
			if ix < 0 {
				ix = iy
			}
			fmt.Fprintf(&b, "[%d]", ix)
		case cmp.MapIndex:
			fmt.Fprintf(&b, "[%v]", s.Key())
		}
	}
	if b.Len() == 0 {
		return "the object"
	}
	return b.String()
}

// jsonName is the name encoding/json gives f, and whether f's fields are
// inlined into its parent's (an embedded struct without a name, such as
// metav1.TypeMeta).
func jsonName(f reflect.StructField) (name string, inline bool) {
	tag := f.Tag.Get("json")
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" && (f.Anonymous || strings.Contains(opts, "inline")) {
		return "", true
	}
	if name == "" || name == "-" {
		return f.Name, false
	}
	return name, false
}

// show spells a value as JSON, or "absent".
func show(v reflect.Value) string {
	if !v.IsValid() {
		return "absent"
	}
	if v.CanInterface() {
		if b, err := json.Marshal(v.Interface()); err == nil {
			s := string(b)
			if len(s) > 200 {
				s = s[:200] + "…"
			}
			return s
		}
	}
	return fmt.Sprintf("%v", v)
}
