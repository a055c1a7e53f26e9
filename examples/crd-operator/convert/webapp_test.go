package convert

import (
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/randfill"

	"github.com/ctrlkit/ctrlkit/controller/webhook/conversion/conversiontest"
	v1 "github.com/ctrlkit/ctrlkit/examples/crd-operator/api/v1"
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
