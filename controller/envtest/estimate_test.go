package envtest

import (
	"strings"
	"testing"
	"time"
)

func programsNamed(names ...string) []program {
	var ps []program
	for _, p := range append(Full.programs(), kubectlProgram) {
		for _, n := range names {
			if p.name == n {
				ps = append(ps, p)
			}
		}
	}
	return ps
}

// The model gives back the build it is calibrated on: the Full set in
// 7m23s on 2 cores (the demo's set: no kubectl).
func TestEstimateMatchesTheMeasuredFullBuild(t *testing.T) {
	if got := estimateBuild(Full.programs(), 2); got != 7*time.Minute+23*time.Second {
		t.Errorf("Full on 2 cores: %s, want the measured 7m23s", got)
	}
}

func TestEstimateOfEachSet(t *testing.T) {
	for _, tc := range []struct {
		name  string
		progs []program
		cores int
		want  time.Duration
		text  string
	}{
		{"Full", Full.programs(), 2, 443 * time.Second, "about 7 minutes on this machine's 2 cores"},
		{"Full", Full.programs(), 4, 222 * time.Second, "about 4 minutes on this machine's 4 cores"},
		{"Full", Full.programs(), 1, 886 * time.Second, "about 15 minutes on this machine's 1 core "},
		// Past 8 cores the critical path, not the cores, bounds it.
		{"Full", Full.programs(), 16, 111 * time.Second, "about 2 minutes on this machine's 16 cores"},
		// etcd, kube-apiserver and the three shared groups.
		{"APIServerOnly", APIServerOnly.programs(), 2, 285 * time.Second, "about 5 minutes"},
		{"Full and kubectl", append(Full.programs(), kubectlProgram), 2, 472 * time.Second, "about 8 minutes"},
		// What a setup-envtest directory leaves to build in Full mode.
		{"scheduler, kcm, kwok", programsNamed("kube-scheduler", "kube-controller-manager", "kwok"), 2, 360 * time.Second, "about 6 minutes"},
		// kwok alone, when its download failed: itself and the client libraries.
		{"kwok", programsNamed("kwok"), 2, 88 * time.Second, "about 1 minute "},
		{"etcd", programsNamed("etcd"), 8, 19 * time.Second, "under a minute"},
	} {
		if got := estimateBuild(tc.progs, tc.cores); got != tc.want {
			t.Errorf("%s on %d cores: %s, want %s", tc.name, tc.cores, got, tc.want)
		}
		if got := buildEstimate(tc.progs, tc.cores); !strings.Contains(got, tc.text) || !strings.Contains(got, "7m23s on an idle 2-core machine") {
			t.Errorf("%s on %d cores: %q, want it to say %q and what it rests on", tc.name, tc.cores, got, tc.text)
		}
	}
}

// Building more never takes less.
func TestEstimateGrowsWithWhatIsBuilt(t *testing.T) {
	all := append(Full.programs(), kubectlProgram)
	for i := range all {
		for j := i + 1; j <= len(all); j++ {
			sub, more := all[i:j-1], all[i:j]
			if a, b := estimateBuild(sub, 2), estimateBuild(more, 2); b < a {
				t.Errorf("%s takes %s, fewer programs %s", names(more), b, a)
			}
		}
	}
}
