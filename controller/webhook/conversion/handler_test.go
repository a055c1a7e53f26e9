package conversion_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/ctrlkit/ctrlkit/controller/webhook/conversion"
	"github.com/ctrlkit/ctrlkit/controller/webhook/conversion/internal/testtypes"
)

// failing is a Widget converter whose v1alpha1 → hub function panics on
// an object named "panic" and fails on one named "fail".
func failing(t *testing.T) *conversion.Converter {
	t.Helper()
	c, err := conversion.NewHubSpokeConverter(testtypes.Hub,
		conversion.NewSpokeConverter("v1alpha1", testtypes.HubToV1alpha1,
			func(ctx context.Context, src *testtypes.WidgetV1alpha1, dst *testtypes.WidgetV1) error {
				switch src.Name {
				case "panic":
					var spec *testtypes.WidgetV1Spec
					dst.Spec = *spec // a nil pointer: a real bug's panic
				case "fail":
					return errors.New("size 7 has no replicas")
				}
				return testtypes.V1alpha1ToHub(ctx, src, dst)
			}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestPanicFailsTheReviewAndTheServerKeepsServing: a conversion function
// that panics, or fails, fails its review with a message naming the object
// and the versions; the next review is converted.
func TestPanicFailsTheReviewAndTheServerKeepsServing(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	h, err := conversion.NewWebhookHandler(conversion.Options{Registerer: reg}, failing(t))
	if err != nil {
		t.Fatal(err)
	}
	url, c := serve(t, h)
	named := func(name string) json.RawMessage {
		return json.RawMessage(strings.Replace(alpha, `"name":"w"`, `"name":"`+name+`"`, 1))
	}
	for _, tc := range []struct{ name, want string }{
		{"panic", "object 1 (ns/panic): the conversion from v1alpha1 to v1 panicked: runtime error: invalid memory address or nil pointer dereference"},
		{"fail", "object 1 (ns/fail): converting from v1alpha1 to v1: converting v1alpha1 to the hub v1: size 7 has no replicas"},
	} {
		r := convert(t, c, url, request{UID: "u1", DesiredAPIVersion: "example.com/v1", Objects: []json.RawMessage{named("ok"), named(tc.name)}})
		if r.Result.Status != "Failure" || r.Result.Code != 500 || r.Result.Message != tc.want || r.ConvertedObjects != nil {
			t.Errorf("%s: result %+v, objects %s; want a 500 failure %q and no objects", tc.name, r.Result, r.ConvertedObjects, tc.want)
		}
	}
	r := convert(t, c, url, request{UID: "u2", DesiredAPIVersion: "example.com/v1", Objects: []json.RawMessage{named("ok")}})
	if r.Result.Status != "Success" || len(r.ConvertedObjects) != 1 {
		t.Fatalf("after a panic: %+v", r)
	}
	if got := series(t, reg, "controller_runtime_conversion_webhook_panics_total")[""]; got != 1 {
		t.Errorf("panics_total = %v, want 1", got)
	}
}

// TestMetricsPerKindAndVersionPair counts objects per pair and result, and
// makes no series of versions nobody registered.
func TestMetricsPerKindAndVersionPair(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	h, err := conversion.NewWebhookHandler(conversion.Options{Registerer: reg}, widgets(t))
	if err != nil {
		t.Fatal(err)
	}
	url, c := serve(t, h)
	convert(t, c, url, request{UID: "1", DesiredAPIVersion: "example.com/v1beta1", Objects: objects(alpha, alpha, hub)})
	convert(t, c, url, request{UID: "2", DesiredAPIVersion: "example.com/v1", Objects: objects(`{"apiVersion":"example.com/v1alpha1","kind":"Widget","spec":{"size":"x"}}`)})
	convert(t, c, url, request{UID: "3", DesiredAPIVersion: "example.com/v1", Objects: objects(`{"apiVersion":"example.com/v7","kind":"Widget"}`)})

	got := series(t, reg, "controller_runtime_conversion_webhook_conversions_total")
	want := map[string]float64{}
	for _, from := range []string{"v1", "v1alpha1", "v1beta1"} {
		for _, to := range []string{"v1", "v1alpha1", "v1beta1"} {
			if from != to {
				want["Widget.example.com "+from+" "+to+" success"] = 0
				want["Widget.example.com "+from+" "+to+" failure"] = 0
			}
		}
	}
	want["Widget.example.com v1alpha1 v1beta1 success"] = 2
	want["Widget.example.com v1 v1beta1 success"] = 1
	want["Widget.example.com v1alpha1 v1 failure"] = 1
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("conversions_total{kind from_version to_version result} (-want +got):\n%s", diff)
	}
	latency := series(t, reg, "controller_runtime_conversion_webhook_latency_seconds")
	wantLatency := map[string]float64{"Widget.example.com v1alpha1 v1beta1": 2, "Widget.example.com v1 v1beta1": 1, "Widget.example.com v1alpha1 v1": 1}
	if diff := cmp.Diff(wantLatency, latency); diff != "" {
		t.Errorf("latency_seconds sample counts (-want +got):\n%s", diff)
	}
}

// TestHandlersShareARegistry: two handlers (or controller-runtime's
// panics counter) on one registry share the series.
func TestHandlersShareARegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	panics := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "controller_runtime_conversion_webhook_panics_total",
		Help: "Total number of conversion webhook panics",
	}, []string{})
	reg.MustRegister(panics)
	for range 2 {
		if _, err := conversion.NewWebhookHandler(conversion.Options{Registerer: reg}, widgets(t)); err != nil {
			t.Fatal(err)
		}
	}
}

// series gathers the metric name from reg: per series, its label values
// in the order kind, from_version, to_version, result (joined by spaces),
// and its value (a histogram's sample count).
func series(t *testing.T, reg prometheus.Gatherer, name string) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	order := map[string]int{"kind": 0, "from_version": 1, "to_version": 2, "result": 3}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			values := make([]string, len(m.GetLabel()))
			for _, l := range m.GetLabel() {
				values[order[l.GetName()]] = l.GetValue()
			}
			key := strings.Join(values, " ")
			switch {
			case m.Counter != nil:
				out[key] = m.GetCounter().GetValue()
			case m.Histogram != nil:
				out[key] = float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return out
}

// TestNewHubSpokeConverterErrors: a converter that cannot convert is
// refused when it is made, with what is wrong.
func TestNewHubSpokeConverterErrors(t *testing.T) {
	type hubWithoutMarker struct{ Spec testtypes.WidgetV1Spec }
	spoke := conversion.NewSpokeConverter("v1alpha1", testtypes.HubToV1alpha1, testtypes.V1alpha1ToHub)
	for _, tc := range []struct {
		name string
		make func() (*conversion.Converter, error)
		want string
	}{
		{"no spoke", func() (*conversion.Converter, error) {
			return conversion.NewHubSpokeConverter[testtypes.WidgetV1](testtypes.Hub)
		}, "there is no spoke"},
		{"no kind", func() (*conversion.Converter, error) {
			return conversion.NewHubSpokeConverter(testtypes.Hub.GroupVersion().WithKind(""), spoke)
		}, "the kind is empty"},
		{"bad hub version", func() (*conversion.Converter, error) {
			return conversion.NewHubSpokeConverter(testtypes.Hub.GroupKind().WithVersion("V1"), spoke)
		}, `the hub version "V1"`},
		{"bad spoke version", func() (*conversion.Converter, error) {
			return conversion.NewHubSpokeConverter(testtypes.Hub, conversion.NewSpokeConverter("v1/alpha", testtypes.HubToV1alpha1, testtypes.V1alpha1ToHub))
		}, `the spoke version "v1/alpha"`},
		{"spoke is the hub's version", func() (*conversion.Converter, error) {
			return conversion.NewHubSpokeConverter(testtypes.Hub, conversion.NewSpokeConverter("v1", testtypes.HubToV1alpha1, testtypes.V1alpha1ToHub))
		}, `version "v1" is given twice`},
		{"spoke twice", func() (*conversion.Converter, error) {
			return conversion.NewHubSpokeConverter(testtypes.Hub, spoke, spoke)
		}, `version "v1alpha1" is given twice`},
		{"nil function", func() (*conversion.Converter, error) {
			return conversion.NewHubSpokeConverter(testtypes.Hub, conversion.NewSpokeConverter[testtypes.WidgetV1, testtypes.WidgetV1alpha1]("v1alpha1", nil, testtypes.V1alpha1ToHub))
		}, "a conversion function is nil"},
		{"zero SpokeConverter", func() (*conversion.Converter, error) {
			return conversion.NewHubSpokeConverter(testtypes.Hub, conversion.SpokeConverter[testtypes.WidgetV1]{})
		}, "zero value"},
		{"convertible spoke, hub without Hub()", func() (*conversion.Converter, error) {
			return conversion.NewHubSpokeConverter(testtypes.Hub, conversion.NewConvertibleSpoke[hubWithoutMarker, testtypes.WidgetV1beta1]("v1beta1"))
		}, "does not implement conversion.Hub"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := tc.make()
			if c != nil || err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, %v; want an error with %q", c, err, tc.want)
			}
		})
	}
}

func TestNewWebhookHandlerErrors(t *testing.T) {
	for _, tc := range []struct {
		name       string
		converters []*conversion.Converter
		want       string
	}{
		{"none", nil, "no converter"},
		{"nil", []*conversion.Converter{nil}, "is nil"},
		{"a kind twice", []*conversion.Converter{widgets(t), widgets(t)}, "Widget.example.com has two converters"},
	} {
		h, err := conversion.NewWebhookHandler(conversion.Options{}, tc.converters...)
		if h != nil || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, %v; want an error with %q", tc.name, h, err, tc.want)
		}
	}
}

// panicky is a spoke whose own JSON decoding panics, as a type's buggy
// UnmarshalJSON might on what a client stored.
type panicky struct{}

func (*panicky) UnmarshalJSON([]byte) error { panic("UnmarshalJSON bug") }

// TestPanicInATypesJSONMethodFailsTheReview: not only conversion
// functions are guarded.
func TestPanicInATypesJSONMethodFailsTheReview(t *testing.T) {
	c, err := conversion.NewHubSpokeConverter(testtypes.Hub, conversion.NewSpokeConverter("v1alpha1",
		func(context.Context, *testtypes.WidgetV1, *panicky) error { return nil },
		func(context.Context, *panicky, *testtypes.WidgetV1) error { return nil }))
	if err != nil {
		t.Fatal(err)
	}
	url, cl := serve(t, handler(t, c))
	r := convert(t, cl, url, request{UID: "u", DesiredAPIVersion: "example.com/v1", Objects: objects(alpha)})
	if r.Result.Status != "Failure" || r.Result.Code != 500 || !strings.Contains(r.Result.Message, "panicked: UnmarshalJSON bug") {
		t.Errorf("result %+v, want a 500 failure naming the panic", r.Result)
	}
}
