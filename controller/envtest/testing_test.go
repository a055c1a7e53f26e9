package envtest

import "testing"

func TestNamespacePrefixIsADNSLabelPrefix(t *testing.T) {
	tests := map[string]string{
		"TestFoo":             "testfoo-",
		"TestFoo/sub_case#01": "testfoo-sub-case-01-",
		"Test/_weird__":       "test-weird-",
		"/":                   "test--",
		"TestAVeryLongNameThatGoesOnAndOnAndOnForeverAndEver": "testaverylongnamethatgoesonandonandonforeverandeve-",
	}
	for name, want := range tests {
		if got := namespacePrefix(name); got != want {
			t.Errorf("namespacePrefix(%q) = %q, want %q", name, got, want)
		}
	}
}
