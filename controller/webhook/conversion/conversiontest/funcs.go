package conversiontest

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/randfill"
)

// defaultFuncs fill the apimachinery types that API types hold and
// randfill cannot fill with values that survive JSON: managed fields are
// JSON, a Quantity and an IntOrString are well formed, a RawExtension
// holds JSON and no Object.
func defaultFuncs() []any {
	return []any{
		func(f *metav1.FieldsV1, c randfill.Continue) {
			f.SetRawString(fmt.Sprintf(`{"f:%d":{}}`, c.Intn(100)))
		},
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewQuantity(c.Int63n(1<<40), resource.DecimalSI)
		},
		func(v *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*v = intstr.FromInt32(c.Int31())
			} else {
				*v = intstr.FromString(c.String(0))
			}
		},
		func(r *runtime.RawExtension, c randfill.Continue) {
			r.Raw = fmt.Appendf(nil, `{"n":%d}`, c.Intn(100))
			r.Object = nil
		},
	}
}
