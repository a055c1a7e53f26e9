package conversiontest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/randfill"

	"github.com/ctrlkit/ctrlkit/controller/webhook/conversion"
	"github.com/ctrlkit/ctrlkit/controller/webhook/conversion/internal/hubspoke"
)

// Options tune RoundTrip. The zero value checks 50 random objects per
// version and direction with a random seed.
type Options struct {
	// Iterations is how many random objects of each version are
	// converted in each direction. Default 50.
	Iterations int
	// Seed makes the random objects; 0 picks one, which a failure
	// reports so that it can be repeated.
	Seed int64
	// Funcs are randfill fill functions, func(*T, randfill.Continue), for
	// types whose random values the conversions cannot take (an image
	// reference that must parse) or randfill cannot make (an interface).
	// They replace this package's own for the same type.
	Funcs []any
	// Carried declares, per spoke, the hub's fields the spoke cannot
	// hold and the annotation that carries each.
	Carried []Carried
}

// Carried declares that the spoke Version has no field for the hub's
// Field (its JSON path, such as "spec.paused") and carries it in the
// annotation Annotation, as the Kubernetes API carries a newer version's
// fields on an older one. RoundTrip holds the conversion to it: a hub
// whose Field is set converts to a spoke with Annotation, a hub converts
// to a spoke with no other annotation of its own, and the hub back from
// that spoke has Field again and not the annotation.
type Carried struct {
	Version    string
	Field      string
	Annotation string
}

// defaultIterations keeps a check of a few versions well under a second.
const defaultIterations = 50

// RoundTrip checks that c's conversions lose nothing. For every spoke, it
// converts random hubs to the spoke and back, and random spokes to the hub
// and back, as the conversion webhook does (through JSON, metadata kept
// but for labels and annotations), and fails t with the first field path
// that changed, the values before and after, and the seed, once per spoke
// and direction.
func RoundTrip(t testing.TB, c *conversion.Converter, opts Options) {
	t.Helper()
	if opts.Iterations <= 0 {
		opts.Iterations = defaultIterations
	}
	if opts.Seed == 0 {
		opts.Seed = time.Now().UnixNano()
	}
	if c == nil {
		t.Errorf("conversiontest: the Converter is nil")
		return
	}
	k := hubspoke.Of(c)
	r := &roundTrip{t: t, k: k, opts: opts,
		// As apimachinery's fuzzer makes them, but with up to 3 elements,
		// so that a conversion that reorders a list is seen.
		filler: randfill.NewWithSeed(opts.Seed).NilChance(.5).NumElements(0, 3).
			Funcs(append(defaultFuncs(), opts.Funcs...)...)}
	for _, carried := range opts.Carried {
		if carried.Version == k.Hub || k.Versions[carried.Version] == nil {
			t.Errorf("conversiontest: %s: Carried names %q, which is not one of its spokes (%s)",
				k.GroupKind, carried.Version, strings.Join(k.Names()[1:], ", "))
		}
	}
	for _, v := range k.Names()[1:] {
		r.check(k.Hub, v)
		r.check(v, k.Hub)
	}
}

type roundTrip struct {
	t      testing.TB
	k      *hubspoke.Kind
	opts   Options
	filler *randfill.Filler
}

// check converts random objects of version from to via and back, and
// reports the first that changes.
func (r *roundTrip) check(from, via string) {
	r.t.Helper()
	route := fmt.Sprintf("%s: %s → %s → %s", r.k.GroupKind, from, via, from)
	for i := range r.opts.Iterations {
		where := fmt.Sprintf("(random object %d of seed %d: set Options.Seed to repeat)", i, r.opts.Seed)
		before, raw, err := r.random(from)
		if err != nil {
			r.t.Errorf("conversiontest: %s: making a random %s: %v %s", r.k.GroupKind, from, err, where)
			return
		}
		middle, err := r.convert(raw, via)
		if err != nil {
			r.t.Errorf("conversiontest: %s: %s → %s failed: %v %s", r.k.GroupKind, from, via, err, where)
			return
		}
		if from == r.k.Hub {
			if msg := r.checkCarried(raw, middle, via); msg != "" {
				r.t.Errorf("conversiontest: %s: %s → %s %s %s", r.k.GroupKind, from, via, msg, where)
				return
			}
		}
		back, err := r.convert(middle, from)
		if err != nil {
			r.t.Errorf("conversiontest: %s: %s → %s failed: %v %s", r.k.GroupKind, via, from, err, where)
			return
		}
		after := r.k.Versions[from].New()
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(back, after); err != nil {
			r.t.Errorf("conversiontest: %s: decoding the %s converted back: %v %s", r.k.GroupKind, from, err, where)
			return
		}
		if path, x, y, ok := firstDiff(before, after); !ok {
			msg := fmt.Sprintf("conversiontest: %s changed %s: %s became %s %s", route, path, x, y, where)
			if from == r.k.Hub && r.carrier(via, path) == nil {
				msg += fmt.Sprintf(". If %s cannot hold %s, carry it in an annotation and declare it in Options.Carried", via, path)
			}
			r.t.Errorf("%s", msg)
			return
		}
	}
}

// random fills a new object of version, and returns it as the webhook
// would decode it from JSON (with its apiVersion and kind), and the JSON.
func (r *roundTrip) random(version string) (obj any, raw []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("randfill: %v: give a fill function for the type in Options.Funcs", p)
		}
	}()
	filled := r.k.Versions[version].New()
	r.filler.Fill(filled)
	encoded, err := json.Marshal(filled)
	if err != nil {
		return nil, nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(encoded, &fields); err != nil || fields == nil {
		return nil, nil, fmt.Errorf("the %s type does not encode as a JSON object", version)
	}
	fields["apiVersion"], _ = json.Marshal(r.k.GroupKind.WithVersion(version).GroupVersion().String())
	fields["kind"], _ = json.Marshal(r.k.GroupKind.Kind)
	if raw, err = json.Marshal(fields); err != nil {
		return nil, nil, err
	}
	obj = r.k.Versions[version].New()
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(raw, obj); err != nil {
		return nil, nil, fmt.Errorf("decoding its JSON: %w", err)
	}
	// Once more, so that what is compared is what JSON keeps (a time's
	// nanoseconds are not).
	if raw, err = json.Marshal(obj); err != nil {
		return nil, nil, err
	}
	return obj, raw, nil
}

// convert converts raw to version as the webhook does.
func (r *roundTrip) convert(raw []byte, to string) ([]byte, error) {
	h, err := hubspoke.ParseHeader(raw)
	if err != nil {
		return nil, err
	}
	return r.k.ConvertJSON(context.Background(), raw, h, to)
}

// carrier is the declaration of field (or of a field holding it) on
// version, or nil.
func (r *roundTrip) carrier(version, field string) *Carried {
	for i, c := range r.opts.Carried {
		if c.Version == version && (field == c.Field || strings.HasPrefix(field, c.Field+".") || strings.HasPrefix(field, c.Field+"[")) {
			return &r.opts.Carried[i]
		}
	}
	return nil
}

// checkCarried holds the hub → spoke conversion of hub to what
// Options.Carried declares for spoke, or says how it fails.
func (r *roundTrip) checkCarried(hub, spoke []byte, version string) string {
	hubAnnotations, spokeAnnotations := annotations(hub), annotations(spoke)
	declared := map[string]bool{}
	for _, c := range r.opts.Carried {
		if c.Version != version {
			continue
		}
		declared[c.Annotation] = true
		if isSet(hub, c.Field) {
			if _, ok := spokeAnnotations[c.Annotation]; !ok {
				return fmt.Sprintf("does not carry %s in the annotation %s, as Options.Carried declares", c.Field, c.Annotation)
			}
		}
	}
	for key, value := range spokeAnnotations {
		if before, ok := hubAnnotations[key]; (!ok || before != value) && !declared[key] {
			return fmt.Sprintf("sets the annotation %s, which Options.Carried does not declare", key)
		}
	}
	return ""
}

func annotations(raw []byte) map[string]string {
	var obj struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(raw, &obj)
	return obj.Metadata.Annotations
}

// isSet reports whether the JSON path ("spec.paused") in raw holds a value
// other than null, false, 0, "", {} or [].
func isSet(raw []byte, path string) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	for _, key := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		v = m[key]
	}
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case float64:
		return v != 0
	case string:
		return v != ""
	case map[string]any:
		return len(v) > 0
	case []any:
		return len(v) > 0
	}
	return true
}
