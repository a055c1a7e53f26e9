package upstreamcheck

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
)

// defaultWorlds is how many random worlds a plain `go test` explores: about
// a minute on two busy cores. `make upstream-long` explores more.
const defaultWorlds = 1000

var (
	randomWorlds = flag.Int("worlds", defaultWorlds, "how many random worlds TestRandomWorldsMatchUpstream explores")
	randomSeed   = flag.Uint64("seed", 1, "TestRandomWorldsMatchUpstream's first seed; world i is drawn from seed+i")
	randomSteps  = flag.Int("steps", 8, "passes TestRandomWorldsMatchUpstream plays on each world after the first")
)

// TestRandomWorldsMatchUpstream drives random worlds (see random_world_test.go)
// through upstream's syncDeployment and our Reconcile, and compares the
// passes as TestSyncMatchesUpstream does: the API requests with their
// objects, the events, failure, and the requeue asked for. After each pass
// the world moves on from upstream's writes, with a stand-in for the
// ReplicaSet controller, the kubelets and an occasional user edit in
// between, so that later passes start from worlds the controllers
// themselves led to.
//
// One input class is excluded, on purpose: a Deployment whose selector
// does not select its own new ReplicaSet (see unadoptableNewReplicaSet).
//
// A difference names the seed; `go test -run TestRandomWorldsMatchUpstream
// -seed S -worlds 1` replays that world alone.
func TestRandomWorldsMatchUpstream(t *testing.T) {
	// Upstream logs through klog at levels a test cannot lower per pass;
	// thousands of passes' logs would cost more than the passes.
	ctx := klog.NewContext(context.Background(), logr.Discard())
	began := time.Now()
	paths := map[string]int{}
	passes, differing := 0, 0
	for i := range *randomWorlds {
		seed := *randomSeed + uint64(i)
		n, ok := playRandomWorld(ctx, t, seed, *randomSteps, paths)
		passes += n
		if !ok {
			if differing++; differing == maxReported {
				t.Fatalf("stopped after %d differing worlds", differing)
			}
		}
	}
	t.Logf("%d worlds, %d passes compared, in %v", *randomWorlds, passes, time.Since(began).Round(time.Millisecond))
	t.Logf("what upstream's passes did (passes doing it): %s", describePaths(paths))
	if *randomWorlds >= defaultWorlds && *randomSeed == 1 {
		checkPathsCovered(t, paths)
	}
}

// maxReported bounds how many differing worlds one run reports.
const maxReported = 5

// playRandomWorld draws the world of seed and plays 1+steps passes on it.
// It reports how many passes matched, and false at the first difference.
func playRandomWorld(ctx context.Context, t *testing.T, seed uint64, steps int, paths map[string]int) (int, bool) {
	g := newWorldGen(seed)
	w := g.world()
	key := ns + "/" + w.cached[0].(*appsv1.Deployment).Name
	s := &standIn{g: g}
	for pass := 0; pass <= steps; pass++ {
		if d := w.cached[0].(*appsv1.Deployment); unadoptableNewReplicaSet(d) {
			// Out of scope on purpose (see unadoptableNewReplicaSet); the
			// generator must not draw it.
			t.Fatalf("seed %d, pass %d: a world whose selector rejects its own new ReplicaSet, where ctrlkit differs on purpose:\n%s",
				seed, pass, dumpWorld(w))
		}
		start := time.Now()
		want, client := runUpstream(ctx, t, w, key, start)
		got, _ := runOurs(ctx, t, w, key, start)
		if diff := cmp.Diff(want, got, sameOutcome); diff != "" {
			t.Errorf("seed %d, pass %d: ours differs from upstream (-upstream +ours):\n%s\nThe world the pass started from:\n%s",
				seed, pass, diff, dumpWorld(w))
			return pass, false
		}
		for p := range pathsOf(want, w.cached[0].(*appsv1.Deployment)) {
			paths[p]++
		}
		w = s.next(t, client, w)
	}
	return steps + 1, true
}

// pathsOf names what a pass from a world whose Deployment was d did: each
// kind of request, each event reason, each Progressing reason and
// collision count written, failing, and each kind of requeue.
func pathsOf(o outcome, d *appsv1.Deployment) map[string]bool {
	out := map[string]bool{}
	for _, a := range o.Actions {
		f := strings.Fields(a)
		p := f[0] + " " + strings.TrimSuffix(f[1], "/")
		switch {
		case f[0] == "patch" && strings.Contains(a, `"$patch":"delete"`):
			p += " (release)"
		case f[0] == "patch":
			p += " (adopt)"
		case f[0] == "update" && f[1] == "deployments/status":
			var written appsv1.Deployment
			if err := json.Unmarshal([]byte(a[strings.Index(a, "{"):]), &written); err == nil {
				for _, c := range written.Status.Conditions {
					if c.Type == appsv1.DeploymentProgressing {
						out["progressing "+c.Reason] = true
					}
				}
				if ptr.Deref(written.Status.CollisionCount, 0) != ptr.Deref(d.Status.CollisionCount, 0) {
					out["collision"] = true
				}
			}
		}
		out[p] = true
	}
	for _, e := range o.Events {
		if f := strings.Fields(e); len(f) > 1 {
			out["event "+f[1]] = true
		}
	}
	if o.Failed {
		out["failed"] = true
	}
	switch {
	case o.Requeue.Soon:
		out["requeue soon"] = true
	case o.Requeue.After > 0:
		out["requeue after"] = true
	}
	if len(o.Actions) == 0 && len(o.Events) == 0 && !o.Failed {
		out["nothing"] = true
	}
	return out
}

// mustCover lists what the default corpus must make upstream do at least
// once: if the generator stops reaching one of these, the test says so
// rather than silently comparing less.
var mustCover = []string{
	"create replicasets", "update replicasets", "delete replicasets",
	"patch replicasets (adopt)", "patch replicasets (release)", "get deployments",
	"update deployments", "update deployments/status",
	"event ScalingReplicaSet", "event DeploymentRollback", "event DeploymentRollbackRevisionNotFound",
	"event DeploymentRollbackTemplateUnchanged", "event ReplicaSetCreateError",
	"progressing NewReplicaSetCreated", "progressing FoundNewReplicaSet", "progressing ReplicaSetUpdated",
	"progressing NewReplicaSetAvailable", "progressing ProgressDeadlineExceeded", "progressing ReplicaSetCreateError",
	"progressing DeploymentPaused", "progressing DeploymentResumed", "collision",
	"failed", "requeue soon", "requeue after", "nothing",
}

func checkPathsCovered(t *testing.T, paths map[string]int) {
	for _, p := range mustCover {
		if paths[p] == 0 {
			t.Errorf("no pass of the default corpus did %q: the world generator no longer reaches it", p)
		}
	}
}

func describePaths(paths map[string]int) string {
	var parts []string
	for _, p := range slices.Sorted(maps.Keys(paths)) {
		parts = append(parts, fmt.Sprintf("%s %d", p, paths[p]))
	}
	return strings.Join(parts, ", ")
}

// dumpWorld prints a world, one object per line, cached and (when it
// differs) served.
func dumpWorld(w syncWorld) string {
	var b strings.Builder
	dump := func(label string, objs []runtime.Object) {
		for _, o := range objs {
			j, err := json.Marshal(o)
			if err != nil {
				j = []byte(err.Error())
			}
			fmt.Fprintf(&b, "%s %T %s\n", label, o, j)
		}
	}
	dump("cached", w.cached)
	if w.served != nil {
		dump("served", w.served)
	}
	for _, r := range w.refusals {
		fmt.Fprintf(&b, "refused %s %s: %v\n", r.verb, r.resource, r.err)
	}
	return b.String()
}
