package deployment

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestResolveFenceposts(t *testing.T) {
	tests := []struct {
		name                  string
		surge, unavailable    *intstr.IntOrString
		desired               int32
		wantSurge, wantUnavai int32
		wantErr               string // substring; empty means no error
	}{
		{name: "percentages of ten", surge: intOrStr("39%"), unavailable: intOrStr("39%"), desired: 10, wantSurge: 4, wantUnavai: 3},
		{name: "surge rounds up", surge: intOrStr("1%"), unavailable: intOrStr("50%"), desired: 10, wantSurge: 1, wantUnavai: 5},
		{name: "unavailable rounds down", surge: intOrStr("0%"), unavailable: intOrStr("19%"), desired: 10, wantSurge: 0, wantUnavai: 1},
		{name: "small percentages: surge 1 and unavailable 0", surge: intOrStr("1%"), unavailable: intOrStr("1%"), desired: 10, wantSurge: 1, wantUnavai: 0},
		{name: "both round to zero: unavailable becomes 1", surge: intOrStr("0%"), unavailable: intOrStr("9%"), desired: 10, wantSurge: 0, wantUnavai: 1},
		{name: "both zero percent with zero replicas", surge: intOrStr("0%"), unavailable: intOrStr("0%"), desired: 0, wantSurge: 0, wantUnavai: 1},
		{name: "both nil", desired: 10, wantSurge: 0, wantUnavai: 1},
		{name: "nil surge counts as zero", unavailable: intOrStr("39%"), desired: 10, wantSurge: 0, wantUnavai: 3},
		{name: "nil unavailable counts as zero", surge: intOrStr("39%"), desired: 10, wantSurge: 4, wantUnavai: 0},
		{name: "integers are taken as they are", surge: intOrStr(3), unavailable: intOrStr(2), desired: 10, wantSurge: 3, wantUnavai: 2},
		{name: "integers above replicas are not capped here", surge: intOrStr(30), unavailable: intOrStr(20), desired: 10, wantSurge: 30, wantUnavai: 20},
		{name: "integer zeros: unavailable becomes 1", surge: intOrStr(0), unavailable: intOrStr(0), desired: 10, wantSurge: 0, wantUnavai: 1},
		{name: "surge over 100 percent is valid", surge: intOrStr("150%"), unavailable: intOrStr(0), desired: 3, wantSurge: 5, wantUnavai: 0},
		{name: "unavailable over 100 percent (old object) resolves like upstream", surge: intOrStr(0), unavailable: intOrStr("150%"), desired: 3, wantSurge: 0, wantUnavai: 4},
		{name: "surge not a percentage", surge: intOrStr("oops"), unavailable: intOrStr("39%"), desired: 10, wantErr: "maxSurge"},
		{name: "unavailable not a percentage", surge: intOrStr("55%"), unavailable: intOrStr("urg"), desired: 10, wantErr: "maxUnavailable"},
		{name: "number without percent sign", surge: intOrStr("5"), desired: 10, wantErr: "percentage"},
		{name: "fractional percentage", surge: intOrStr("12.5%"), desired: 10, wantErr: "12.5%"},
		{name: "bare percent sign", unavailable: intOrStr("%"), desired: 10, wantErr: "maxUnavailable"},
		// Values the API server rejects, still possible in objects stored by
		// old servers: resolved as upstream resolves them, not refused, so
		// both controllers take the same decisions.
		{name: "negative integer (old object) stays negative", surge: intOrStr(-1), desired: 10, wantSurge: -1, wantUnavai: 0},
		{name: "negative percentage (old object) stays negative", unavailable: intOrStr("-10%"), desired: 10, wantSurge: 0, wantUnavai: -1},
		{name: "percentage overflowing int32 wraps like upstream", surge: intOrStr("99999999999%"), desired: 10, wantSurge: int32(int64(10_000_000_000) - 2<<32), wantUnavai: 0},
		{name: "percentage of many replicas wraps like upstream", surge: intOrStr("200%"), desired: 2_000_000_000, wantSurge: int32(int64(4_000_000_000) - 1<<32), wantUnavai: 0},
		{name: "unknown type", surge: &intstr.IntOrString{Type: 9}, desired: 10, wantErr: "neither"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			surge, unavailable, err := ResolveFenceposts(tt.surge, tt.unavailable, tt.desired)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ResolveFenceposts() error = %v, want one mentioning %q", err, tt.wantErr)
				}
				if surge != 0 || unavailable != 0 {
					t.Errorf("ResolveFenceposts() = %d, %d with an error, want 0, 0", surge, unavailable)
				}
				return
			}
			if err != nil {
				t.Fatalf("ResolveFenceposts() unexpected error: %v", err)
			}
			if surge != tt.wantSurge || unavailable != tt.wantUnavai {
				t.Errorf("ResolveFenceposts() = %d, %d; want %d, %d", surge, unavailable, tt.wantSurge, tt.wantUnavai)
			}
		})
	}
}

func TestDeploymentFenceposts(t *testing.T) {
	noRollingParams := func(d *appsv1.Deployment) *appsv1.Deployment {
		d.Spec.Strategy.RollingUpdate = nil
		return d
	}
	tests := []struct {
		name                               string
		d                                  *appsv1.Deployment
		wantSurge, wantUnavail, wantMinAvl int32
	}{
		{name: "default 25% of ten", d: newDeployment("d", 10), wantSurge: 3, wantUnavail: 2, wantMinAvl: 8},
		{name: "recreate has no surge nor unavailable", d: withRecreate(newDeployment("d", 10)), wantSurge: 0, wantUnavail: 0, wantMinAvl: 0},
		{name: "zero replicas: nothing may be unavailable", d: withRolling(newDeployment("d", 0), intOrStr(1), intOrStr(1)), wantSurge: 1, wantUnavail: 0, wantMinAvl: 0},
		{name: "unavailable capped at replicas", d: withRolling(newDeployment("d", 2), intOrStr(0), intOrStr(5)), wantSurge: 0, wantUnavail: 2, wantMinAvl: 0},
		{name: "both zero: one may be unavailable", d: withRolling(newDeployment("d", 4), intOrStr(0), intOrStr("10%")), wantSurge: 0, wantUnavail: 1, wantMinAvl: 3},
		{name: "invalid values count as zero", d: withRolling(newDeployment("d", 4), intOrStr("x"), intOrStr(1)), wantSurge: 0, wantUnavail: 0, wantMinAvl: 4},
		{name: "missing rollingUpdate block counts as nil values", d: noRollingParams(newDeployment("d", 4)), wantSurge: 0, wantUnavail: 1, wantMinAvl: 3},
		{name: "unknown strategy", d: func() *appsv1.Deployment {
			d := newDeployment("d", 4)
			d.Spec.Strategy.Type = "BlueGreen"
			return d
		}(), wantSurge: 0, wantUnavail: 0, wantMinAvl: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := maxSurge(tt.d); got != tt.wantSurge {
				t.Errorf("maxSurge() = %d, want %d", got, tt.wantSurge)
			}
			if got := maxUnavailable(tt.d); got != tt.wantUnavail {
				t.Errorf("maxUnavailable() = %d, want %d", got, tt.wantUnavail)
			}
			if got := minAvailable(tt.d); got != tt.wantMinAvl {
				t.Errorf("minAvailable() = %d, want %d", got, tt.wantMinAvl)
			}
		})
	}
}

func TestSpecReplicasDefaults(t *testing.T) {
	d := newDeployment("web", 4)
	rs := newReplicaSet(d, "abc", 2, 0)
	if specReplicas(d) != 4 || rsSpecReplicas(rs) != 2 {
		t.Fatalf("specReplicas = %d, rsSpecReplicas = %d; want 4, 2", specReplicas(d), rsSpecReplicas(rs))
	}
	// The API server defaults a missing spec.replicas to 1; objects built in
	// tests or by other tools may lack it.
	d.Spec.Replicas, rs.Spec.Replicas = nil, nil
	if specReplicas(d) != 1 || rsSpecReplicas(rs) != 1 {
		t.Errorf("with nil replicas: specReplicas = %d, rsSpecReplicas = %d; want 1, 1", specReplicas(d), rsSpecReplicas(rs))
	}
}
