package conversiontest_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/controller/webhook/conversion"
	"github.com/ctrlkit/ctrlkit/controller/webhook/conversion/conversiontest"
	"github.com/ctrlkit/ctrlkit/controller/webhook/conversion/internal/testtypes"
)

// fakeTB records what RoundTrip reports instead of failing the test.
type fakeTB struct {
	testing.TB
	errors []string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}

// paused declares how v1alpha1 carries v1's spec.paused.
var paused = []conversiontest.Carried{{Version: "v1alpha1", Field: "spec.paused", Annotation: testtypes.PausedAnnotation}}

// TestRoundTripPassesOnLosslessConversions: v1alpha1 (a field renamed, one
// split in two, one carried in an annotation) and v1beta1 (methods) lose
// nothing.
func TestRoundTripPassesOnLosslessConversions(t *testing.T) {
	c, err := testtypes.Converter()
	if err != nil {
		t.Fatal(err)
	}
	conversiontest.RoundTrip(t, c, conversiontest.Options{Funcs: testtypes.FillFuncs, Carried: paused})
}

// converter is the test Widgets' with v1alpha1's functions replaced.
func converter(t *testing.T,
	hubToSpoke func(context.Context, *testtypes.WidgetV1, *testtypes.WidgetV1alpha1) error,
	spokeToHub func(context.Context, *testtypes.WidgetV1alpha1, *testtypes.WidgetV1) error,
) *conversion.Converter {
	t.Helper()
	c, err := conversion.NewHubSpokeConverter(testtypes.Hub, conversion.NewSpokeConverter("v1alpha1", hubToSpoke, spokeToHub))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// check runs RoundTrip on c against a fake TB with a fixed seed and
// returns what it reported.
func check(t *testing.T, c *conversion.Converter, opts conversiontest.Options) []string {
	t.Helper()
	fake := &fakeTB{TB: t}
	opts.Seed = 1
	conversiontest.RoundTrip(fake, c, opts)
	return fake.errors
}

// wantReports checks that got holds one report per pattern, in order.
func wantReports(t *testing.T, got []string, patterns ...string) {
	t.Helper()
	if len(got) != len(patterns) {
		t.Fatalf("got %d reports, want %d:\n%s", len(got), len(patterns), strings.Join(got, "\n"))
	}
	for i, p := range patterns {
		if !regexp.MustCompile(p).MatchString(got[i]) {
			t.Errorf("report %d:\n%s\nwant it to match\n%s", i, got[i], p)
		}
	}
}

// TestRoundTripNamesADroppedField: a conversion to the hub that forgets
// status.readyReplicas fails both directions, naming the field.
func TestRoundTripNamesADroppedField(t *testing.T) {
	dropsReady := func(ctx context.Context, src *testtypes.WidgetV1alpha1, dst *testtypes.WidgetV1) error {
		err := testtypes.V1alpha1ToHub(ctx, src, dst)
		dst.Status.ReadyReplicas = 0 // the bug
		return err
	}
	got := check(t, converter(t, testtypes.HubToV1alpha1, dropsReady), conversiontest.Options{Funcs: testtypes.FillFuncs, Carried: paused})
	wantReports(t, got,
		`^conversiontest: Widget\.example\.com: v1 → v1alpha1 → v1 changed status\.readyReplicas: -?[0-9]+ became 0 \(random object \d+ of seed 1: set Options\.Seed to repeat\)\. If v1alpha1 cannot hold status\.readyReplicas, carry it in an annotation and declare it in Options\.Carried$`,
		`^conversiontest: Widget\.example\.com: v1alpha1 → v1 → v1alpha1 changed status\.readyReplicas: -?[0-9]+ became 0 \(random object \d+ of seed 1: set Options\.Seed to repeat\)$`,
	)
}

// TestRoundTripHoldsCarriedFieldsToTheirDeclaration: a field carried in
// an undeclared annotation, a declared one not carried, and one dropped.
func TestRoundTripHoldsCarriedFieldsToTheirDeclaration(t *testing.T) {
	t.Run("undeclared", func(t *testing.T) {
		got := check(t, converter(t, testtypes.HubToV1alpha1, testtypes.V1alpha1ToHub), conversiontest.Options{Funcs: testtypes.FillFuncs})
		wantReports(t, got, `^conversiontest: Widget\.example\.com: v1 → v1alpha1 sets the annotation example\.com/paused, which Options\.Carried does not declare \(random object \d+ of seed 1`)
	})
	t.Run("declared, not carried", func(t *testing.T) {
		dropsPaused := func(ctx context.Context, src *testtypes.WidgetV1, dst *testtypes.WidgetV1alpha1) error {
			hub := *src
			hub.Spec.Paused = false
			return testtypes.HubToV1alpha1(ctx, &hub, dst)
		}
		got := check(t, converter(t, dropsPaused, testtypes.V1alpha1ToHub), conversiontest.Options{Funcs: testtypes.FillFuncs, Carried: paused})
		wantReports(t, got, `^conversiontest: Widget\.example\.com: v1 → v1alpha1 does not carry spec\.paused in the annotation example\.com/paused, as Options\.Carried declares`)
	})
	t.Run("carried, not restored", func(t *testing.T) {
		keepsAnnotation := func(ctx context.Context, src *testtypes.WidgetV1alpha1, dst *testtypes.WidgetV1) error {
			err := testtypes.V1alpha1ToHub(ctx, src, dst)
			dst.Spec.Paused = false
			return err
		}
		got := check(t, converter(t, testtypes.HubToV1alpha1, keepsAnnotation), conversiontest.Options{Funcs: testtypes.FillFuncs, Carried: paused})
		wantReports(t, got, `^conversiontest: Widget\.example\.com: v1 → v1alpha1 → v1 changed spec\.paused: true became false \(random object \d+ of seed 1: set Options\.Seed to repeat\)$`)
	})
}

// TestRoundTripFindsALossySplit: without fill functions that keep colons
// out of an image's parts, a repository "a:b" comes back split. (The
// other direction loses only an image ending in a colon, which random
// strings rarely do.)
func TestRoundTripFindsALossySplit(t *testing.T) {
	got := check(t, converter(t, testtypes.HubToV1alpha1, testtypes.V1alpha1ToHub), conversiontest.Options{Carried: paused})
	wantReports(t, got,
		`^conversiontest: Widget\.example\.com: v1 → v1alpha1 → v1 changed spec\.image\.repository: ".*:.*" became ".*" \(random object`)
}

// TestRoundTripReportsWhatItCannotCheck: a Carried naming no spoke, and a
// type randfill cannot fill.
func TestRoundTripReportsWhatItCannotCheck(t *testing.T) {
	got := check(t, converter(t, testtypes.HubToV1alpha1, testtypes.V1alpha1ToHub),
		conversiontest.Options{Funcs: testtypes.FillFuncs, Iterations: 1, Carried: append([]conversiontest.Carried{{Version: "v2", Field: "spec.x", Annotation: "x"}}, paused...)})
	wantReports(t, got, `^conversiontest: Widget\.example\.com: Carried names "v2", which is not one of its spokes \(v1alpha1\)$`)

	type withInterface struct {
		Spec struct {
			Any any `json:"any"`
		} `json:"spec"`
	}
	c, err := conversion.NewHubSpokeConverter(testtypes.Hub, conversion.NewSpokeConverter("v1alpha1",
		func(context.Context, *testtypes.WidgetV1, *withInterface) error { return nil },
		func(context.Context, *withInterface, *testtypes.WidgetV1) error { return nil }))
	if err != nil {
		t.Fatal(err)
	}
	got = check(t, c, conversiontest.Options{Funcs: testtypes.FillFuncs, Iterations: 1})
	if len(got) == 0 || !strings.Contains(got[len(got)-1], "making a random v1alpha1: randfill: can't fill type interface {}") ||
		!strings.Contains(got[len(got)-1], "give a fill function for the type in Options.Funcs") {
		t.Errorf("reports %q, want the last to ask for a fill function", got)
	}
}
