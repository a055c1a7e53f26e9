package main

import (
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// shardRun is a sharded run with the given rollout time in seconds and,
// per replica, its cached pods (and a tenth as many Deployments and
// ReplicaSets each), heap and list and watch bytes in MiB.
func shardRun(rollout float64, replicas ...[4]int) result {
	phase := func(s float64) phaseResult {
		return phaseResult{elapsed: time.Duration(s * float64(time.Second)), available: 100, total: 100}
	}
	r := result{controller: sharded, deployments: 100, replicas: 3, replicaCount: len(replicas), create: phase(10), rollout: phase(rollout)}
	for i, m := range replicas {
		r.replicaReports = append(r.replicaReports, replicaReport{
			Event: reportEvent, ID: "replica-" + strconv.Itoa(i), Members: len(replicas), RangeFraction: 1 / float64(len(replicas)),
			Cached:    map[string]int{"deployments": m[0] / 10, "replicasets": m[0] / 10, "pods": m[0]},
			HeapInuse: uint64(m[1]) << 20, ListBytes: int64(m[2]) << 20, WatchBytes: int64(m[3]) << 20,
		})
	}
	return r
}

func TestRenderShardsMeasuresEachReplicaAgainstTheSingleOne(t *testing.T) {
	single := shardRun(100, [4]int{3000, 100, 2, 38})
	ring := shardRun(95, [4]int{1000, 40, 1, 12}, [4]int{900, 38, 1, 11}, [4]int{1100, 44, 1, 13})
	got := renderShards([]result{single, ring}, 30, 2)
	want := `| run | replica | hash range | Deployments | ReplicaSets | Pods | cached objects | of 1 replica's | heap in use (MiB) | of 1 replica's | list (KiB) | watch (KiB) | list + watch, of 1 replica's |
|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
| ours, ring of 1 | replica-0 | 100.0% | 300 | 300 | 3000 | 3600 | 100.0% | 100.0 | 100.0% | 2048 | 38912 | 100.0% |
| ours, ring of 3 | replica-0 | 33.3% | 100 | 100 | 1000 | 1200 | 33.3% | 40.0 | 40.0% | 1024 | 12288 | 32.5% |
| ours, ring of 3 | replica-1 | 33.3% | 90 | 90 | 900 | 1080 | 30.0% | 38.0 | 38.0% | 1024 | 11264 | 30.0% |
| ours, ring of 3 | replica-2 | 33.3% | 110 | 110 | 1100 | 1320 | 36.7% | 44.0 | 44.0% | 1024 | 13312 | 35.0% |
`
	if !strings.HasPrefix(got, want) {
		t.Errorf("renderShards starts\n%s\nwant\n%s", got, want)
	}
	for _, line := range []string{
		"| largest sharded replica's cached objects, of the single replica's | 36.67% | ≤ 40.00% | met |\n",
		"| rollout time, ring of n / ring of 1 | 0.95× | ≤ 1.00× | met |\n",
	} {
		if !slices.Contains(strings.SplitAfter(got, "\n"), line) {
			t.Errorf("renderShards:\n%s\nwant the line %q", got, line)
		}
	}
	if !strings.Contains(got, "this one has 2") || !strings.Contains(got, "cannot roll out n times faster") {
		t.Errorf("renderShards does not say what two cores show:\n%s", got)
	}
	if !strings.Contains(got, "Deployments in each of the 3 hash ranges (by the hashes of their 30 namespaces): ") {
		t.Errorf("renderShards does not give the expected split:\n%s", got)
	}
}

func TestRenderShardsMissesTargetsOutsideTheBounds(t *testing.T) {
	single := shardRun(100, [4]int{3000, 100, 2, 38})
	// One replica holds 41 % of the objects, and the ring is slower.
	ring := shardRun(101, [4]int{1230, 40, 1, 12}, [4]int{900, 38, 1, 11}, [4]int{870, 44, 1, 13})
	got := strings.SplitAfter(renderShards([]result{single, ring}, 30, 2), "\n")
	for _, line := range []string{
		"| largest sharded replica's cached objects, of the single replica's | 41.00% | ≤ 40.00% | not met |\n",
		"| rollout time, ring of n / ring of 1 | 1.01× | ≤ 1.00× | not met |\n",
	} {
		if !slices.Contains(got, line) {
			t.Errorf("renderShards:\n%s\nwant the line %q", strings.Join(got, ""), line)
		}
	}
}

func TestRenderShardsCountsAnUnfinishedOrMissingRunAsMissed(t *testing.T) {
	single := shardRun(100, [4]int{3000, 100, 2, 38})
	ring := shardRun(50, [4]int{1000, 40, 1, 12}, [4]int{1000, 38, 1, 11}, [4]int{1000, 44, 1, 13})
	ring.rollout.available = 99 // timed out
	for name, results := range map[string][]result{
		"unfinished ring":   {single, ring},
		"no ring":           {single},
		"no single replica": {shardRun(50, [4]int{1000, 40, 1, 12}, [4]int{1000, 38, 1, 11})},
	} {
		got := strings.SplitAfter(renderShards(results, 30, 2), "\n")
		for _, line := range []string{
			"| largest sharded replica's cached objects, of the single replica's | n/a | ≤ 40.00% | not met |\n",
			"| rollout time, ring of n / ring of 1 | n/a | ≤ 1.00× | not met |\n",
		} {
			if !slices.Contains(got, line) {
				t.Errorf("%s: renderShards:\n%s\nwant the line %q", name, strings.Join(got, ""), line)
			}
		}
	}
}

func TestExpectedSplitOfTheFullSizeMeetsTheCacheTarget(t *testing.T) {
	// 1,000 Deployments over 300 namespaces: hashing alone must leave
	// every one of 3 replicas under the 40 % target, or the full run
	// could not meet it.
	split := expectedSplit(1000, 300, 3)
	total := 0
	for _, s := range split {
		n, err := strconv.Atoi(strings.Fields(s)[0])
		if err != nil {
			t.Fatal(err)
		}
		total += n
		if n > 400 {
			t.Errorf("a range holds %s of 1000 Deployments, over the 40%% target (split %v)", s, split)
		}
	}
	if total != 1000 {
		t.Errorf("split %v sums to %d, want 1000", split, total)
	}
	if got := expectedSplit(10, 1, 2); !slices.Contains(got, "10 (100.0%)") {
		t.Errorf("one namespace split as %v, want it whole in one range", got)
	}
}

func TestParseFlagsShards(t *testing.T) {
	cfg, err := parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.shards != 0 || cfg.namespaces != 1 || cfg.namespaceOf(7) != namespace || cfg.watchNamespace() != namespace {
		t.Errorf("defaults: shards %d, namespaces %d, namespaceOf(7) %q, watch %q; want 0, 1, %q, %q",
			cfg.shards, cfg.namespaces, cfg.namespaceOf(7), cfg.watchNamespace(), namespace, namespace)
	}
	if diff := cmp.Diff([]runSpec{{kind: ours}, {kind: upstream}}, cfg.runs(), cmp.AllowUnexported(runSpec{})); diff != "" {
		t.Errorf("runs without -shards (-want +got):\n%s", diff)
	}

	cfg, err = parseFlags(strings.Fields("-n 60 -r 1 -namespaces 30 -shards 3 -controller ours"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]runSpec{{sharded, 1}, {sharded, 3}}, cfg.runs(), cmp.AllowUnexported(runSpec{})); diff != "" {
		t.Errorf("runs with -shards 3 (-want +got):\n%s", diff)
	}
	if got := cfg.namespaceOf(31); got != "s001-scalebench" {
		t.Errorf("namespaceOf(31) = %q, want s001-scalebench", got)
	}
	if names := cfg.namespaceNames(); len(names) != 30 || names[29] != "s029-scalebench" || cfg.watchNamespace() != "" {
		t.Errorf("namespaces %v, watch %q; want 30 up to s029-scalebench, watched in all", names, cfg.watchNamespace())
	}
	if got := (result{controller: sharded, replicaCount: 3}).label(); got != "ours, ring of 3" {
		t.Errorf("label = %q", got)
	}

	for args, want := range map[string]string{
		"-shards 1":                    "-shards must be 0 (off) or at least 2",
		"-shards -1":                   "-shards must be 0 (off) or at least 2",
		"-namespaces 0":                "-namespaces must be positive",
		"-shards 3 -controller both":   "-shards runs our controller only",
		"-shards 3 -pairs 1":           "-pairs does not apply",
		"-shards 3 -cpuprofile cpu.pb": "-cpuprofile profiles this process",
	} {
		if _, err := parseFlags(strings.Fields(args), io.Discard); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseFlags(%q) = %v, want an error mentioning %q", args, err, want)
		}
	}
}
