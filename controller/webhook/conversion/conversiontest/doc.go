// Package conversiontest checks, in a user's tests, that the conversions
// of a conversion.Converter lose nothing.
//
//	func TestWidgetConversion(t *testing.T) {
//		c, err := convert.WidgetConverter() // conversion.NewHubSpokeConverter(...)
//		if err != nil {
//			t.Fatal(err)
//		}
//		conversiontest.RoundTrip(t, c, conversiontest.Options{
//			Carried: []conversiontest.Carried{
//				{Version: "v1alpha1", Field: "spec.paused", Annotation: "example.com/paused"},
//			},
//		})
//	}
//
// RoundTrip fills random objects of the hub and of every spoke with
// sigs.k8s.io/randfill (as apimachinery's own round-trip tests do) and
// converts them as the conversion webhook does: through JSON, with the
// metadata kept but for labels and annotations. For every spoke it checks
// hub → spoke → hub and spoke → hub → spoke, and reports the first field
// path that changed, both values, and the seed that repeats it. Nil and
// empty lists and maps are equal, as in apimachinery's semantic equality.
//
// Where a spoke cannot hold a hub field, the conversion carries it in an
// annotation, and Options.Carried declares which: RoundTrip then checks
// that a hub with the field set converts to a spoke with the annotation,
// that the spoke gets no annotation nobody declared, and that the hub
// back has the field and not the annotation.
//
// Values that a conversion cannot take (a string it parses) or randfill
// cannot make (an interface) get fill functions in Options.Funcs.
package conversiontest
