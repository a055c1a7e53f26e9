package convert

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/randfill"

	"github.com/ctrlkit/ctrlkit/controller/webhook/conversion"
	"github.com/ctrlkit/ctrlkit/controller/webhook/conversion/conversiontest"
	v1 "github.com/ctrlkit/ctrlkit/examples/crd-operator/api/v1"
	"github.com/ctrlkit/ctrlkit/examples/crd-operator/api/v1alpha1"
)

// TestWebAppRoundTrip: v1alpha1 → v1 → v1alpha1 and v1 → v1alpha1 → v1
// lose nothing, for random WebApps.
func TestWebAppRoundTrip(t *testing.T) {
	c, err := WebAppConverter()
	if err != nil {
		t.Fatal(err)
	}
	conversiontest.RoundTrip(t, c, conversiontest.Options{Iterations: 200, Funcs: []any{fillImage}})
}

// recordingTB records what RoundTrip reports instead of failing the test.
type recordingTB struct {
	testing.TB
	errors []string
}

func (r *recordingTB) Helper() {}
func (r *recordingTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// TestWebAppRoundTripCatchesALostField: a v1 → v1alpha1 conversion that
// forgets the renamed port fails the check, which names spec.containerPort.
func TestWebAppRoundTripCatchesALostField(t *testing.T) {
	forgetful := func(ctx context.Context, src *v1.WebApp, dst *v1alpha1.WebApp) error {
		err := WebAppV1ToV1alpha1(ctx, src, dst)
		dst.Spec.Port = 0
		return err
	}
	c, err := conversion.NewHubSpokeConverter(v1.Kind, conversion.NewSpokeConverter("v1alpha1", forgetful, WebAppV1alpha1ToV1))
	if err != nil {
		t.Fatal(err)
	}
	rec := &recordingTB{TB: t}
	conversiontest.RoundTrip(rec, c, conversiontest.Options{Funcs: []any{fillImage}})
	if len(rec.errors) == 0 || !strings.Contains(rec.errors[0], "spec.containerPort") {
		t.Errorf("RoundTrip reported %q, want a change of spec.containerPort", rec.errors)
	}
}

// fillImage makes v1 images that v1's schema admits: a repository whose
// last path element has no colon and no @, and a tag or digest. Any
// v1alpha1 image is fine as it is.
func fillImage(img *v1.Image, c randfill.Continue) {
	element := func() string {
		return strings.Map(func(r rune) rune {
			if strings.ContainsRune("@:/", r) {
				return -1
			}
			return r
		}, c.String(0)) + "x"
	}
	img.Repository = element()
	if c.Bool() {
		img.Repository = "registry.example:5000/" + element() + "/" + img.Repository
	}
	switch c.Intn(3) {
	case 1:
		img.Tag = fmt.Sprintf("v%d.%d", c.Intn(10), c.Intn(10))
	case 2:
		img.Tag = fmt.Sprintf("sha256:%064x", c.Uint64())
	}
}

// TestSplitImage: what v1alpha1's image becomes in v1.
func TestSplitImage(t *testing.T) {
	for image, want := range map[string]v1.Image{
		"nginx":                        {Repository: "nginx"},
		"nginx:1.27":                   {Repository: "nginx", Tag: "1.27"},
		"registry.example:5000/app":    {Repository: "registry.example:5000/app"},
		"registry.example:5000/app:v2": {Repository: "registry.example:5000/app", Tag: "v2"},
		"nginx@sha256:0123abcd":        {Repository: "nginx", Tag: "sha256:0123abcd"},
		"nginx:":                       {Repository: "nginx:"},
	} {
		got := SplitImage(image)
		if got != want {
			t.Errorf("SplitImage(%q) = %+v, want %+v", image, got, want)
		}
		if back := got.Reference(); back != image {
			t.Errorf("SplitImage(%q).Reference() = %q", image, back)
		}
	}
}
