package envtest

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestKCMControllersAlwaysIncludeNodeLifecycle(t *testing.T) {
	tests := []struct {
		controllers, want []string
	}{
		{nil, []string{"deployment", "replicaset", "garbagecollector", "nodelifecycle"}},
		{[]string{"replicaset"}, []string{"replicaset", "nodelifecycle"}},
		{[]string{"*", "nodelifecycle"}, []string{"*", "nodelifecycle"}},
		{[]string{}, []string{"nodelifecycle"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, kcmControllers(Options{Controllers: tt.controllers})); diff != "" {
			t.Errorf("Controllers %q (-want +got):\n%s", tt.controllers, diff)
		}
	}
	if !slices.Equal(DefaultControllers, []string{"deployment", "replicaset", "garbagecollector"}) {
		t.Errorf("DefaultControllers changed by kcmControllers: %q", DefaultControllers)
	}
}

func TestAPIServerFlagsComeLastAndGatesAreSorted(t *testing.T) {
	args := apiserverArgs(t.TempDir(), "http://127.0.0.1:1", 2, &keyMaterial{}, Options{
		FeatureGates:   map[string]bool{"B": false, "A": true},
		APIServerFlags: []string{"--profiling=true"},
	})
	if got := args[len(args)-2:]; !slices.Equal(got, []string{"--feature-gates=A=true,B=false", "--profiling=true"}) {
		t.Errorf("last flags = %q, want the gates then the extra flag", got)
	}
	if slices.Contains(apiserverArgs(t.TempDir(), "", 2, &keyMaterial{}, Options{}), "--feature-gates=") {
		t.Error("an empty --feature-gates flag without gates")
	}
}
