package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// The neighbours mode: the busy namespace's Deployments roll while the
// quiet one's are created, quietEvery apart from quietAfter into the
// rollout.
const (
	busyNamespace  = "busy"
	quietNamespace = "quiet"
	quietAfter     = 3 * time.Second
	quietEvery     = 500 * time.Millisecond
)

func quietName(i int) string { return fmt.Sprintf("quiet-%02d", i) }

// quietTracker records, for each quiet Deployment, when its create was
// sent, when a watch first saw a ReplicaSet it controls, and when it first
// became available. Informer handlers and the creates feed it.
type quietTracker struct {
	mu                             sync.Mutex
	created, replicaSet, available map[string]time.Time // by Deployment name
}

func newQuietTracker() *quietTracker {
	return &quietTracker{created: map[string]time.Time{}, replicaSet: map[string]time.Time{}, available: map[string]time.Time{}}
}

// first records now as name's time in m unless it has one.
func (q *quietTracker) first(m map[string]time.Time, name string) {
	now := time.Now()
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, seen := m[name]; !seen {
		m[name] = now
	}
}

// observeDeployment is the Deployment informer's add and update handler.
func (q *quietTracker) observeDeployment(obj any) {
	if d, ok := obj.(*appsv1.Deployment); ok && d.Namespace == quietNamespace && available(d, imageV1) {
		q.first(q.available, d.Name)
	}
}

// observeReplicaSet is the ReplicaSet informer's add handler.
func (q *quietTracker) observeReplicaSet(obj any) {
	rs, ok := obj.(*appsv1.ReplicaSet)
	if !ok || rs.Namespace != quietNamespace {
		return
	}
	if owner := metav1.GetControllerOf(rs); owner != nil && owner.Kind == "Deployment" {
		q.first(q.replicaSet, owner.Name)
	}
}

// createQuiet starts the quiet creates: cfg.quiet Deployments, quietAfter
// from now and quietEvery apart, each create in a goroutine of its own so
// that a slow answer does not delay the next. The channel gets the first
// failure, or nil, once every create has returned. sent counts attempts,
// as createDeployment's.
func createQuiet(ctx context.Context, client kubernetes.Interface, cfg config, q *quietTracker, sent *atomic.Int64) <-chan error {
	done := make(chan error, 1)
	go func() {
		var (
			wg    sync.WaitGroup
			first atomic.Pointer[error]
		)
		start := time.Now().Add(quietAfter)
		for i := range cfg.quiet {
			select {
			case <-ctx.Done():
				wg.Wait()
				done <- ctx.Err()
				return
			case <-time.After(time.Until(start.Add(time.Duration(i) * quietEvery))):
			}
			name := quietName(i)
			q.first(q.created, name)
			wg.Go(func() {
				if err := createDeployment(ctx, client, quietNamespace, name, cfg.replicas, sent); err != nil {
					first.CompareAndSwap(nil, &err)
				}
			})
		}
		wg.Wait()
		if err := first.Load(); err != nil {
			done <- *err
			return
		}
		done <- nil
	}()
	return done
}

// quietResult is the quiet Deployments' times from their create's request
// to their first ReplicaSet and to available; missing counts those that
// got neither within phaseTimeout.
type quietResult struct {
	toReplicaSet, toAvailable []time.Duration
	missing                   int
}

// wait waits for the creates to return, then until all n quiet
// Deployments are available or phaseTimeout has passed, and returns
// their times.
func (q *quietTracker) wait(ctx context.Context, creates <-chan error, n int, log io.Writer) (quietResult, error) {
	select {
	case err := <-creates:
		if err != nil {
			return quietResult{}, fmt.Errorf("quiet creates: %w", err)
		}
	case <-ctx.Done():
		return quietResult{}, ctx.Err()
	}
	count := func() int {
		q.mu.Lock()
		defer q.mu.Unlock()
		return len(q.available)
	}
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, phaseTimeout, true, func(context.Context) (bool, error) {
		return count() == n, nil
	})
	if wait.Interrupted(err) && ctx.Err() == nil {
		fmt.Fprintf(log, "scalebench: %d/%d quiet Deployments available after %s\n", count(), n, phaseTimeout)
		err = nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	var res quietResult
	for name, at := range q.created {
		rs, okRS := q.replicaSet[name]
		av, okAv := q.available[name]
		if !okRS || !okAv {
			res.missing++
			continue
		}
		res.toReplicaSet = append(res.toReplicaSet, rs.Sub(at))
		res.toAvailable = append(res.toAvailable, av.Sub(at))
	}
	return res, err
}

// percentile is the nearest-rank p-th percentile of ds in seconds, +Inf
// when some are missing (they would rank last) or there are none.
func percentile(ds []time.Duration, missing int, p float64) float64 {
	if missing > 0 || len(ds) == 0 {
		return math.Inf(1)
	}
	s := slices.Sorted(slices.Values(ds))
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[max(0, rank-1)].Seconds()
}

// times formats a distribution's p50, p90 and max in seconds.
func times(ds []time.Duration, missing int) string {
	parts := make([]string, 3)
	for i, p := range []float64{50, 90, 100} {
		parts[i] = fmt.Sprintf("%.2f", percentile(ds, missing, p))
		if v := percentile(ds, missing, p); math.IsInf(v, 0) {
			parts[i] = "n/a"
		}
	}
	out := strings.Join(parts, " / ")
	if missing > 0 {
		out += fmt.Sprintf(" (%d missing)", missing)
	}
	return out
}

// renderQuiet is the neighbours mode's table: per run, the quiet
// Deployments' times and the busy rollout's.
func renderQuiet(results []result) string {
	var b strings.Builder
	b.WriteString("| # | run | quiet: create→ReplicaSet p50 / p90 / max (s) | quiet: create→available p50 / p90 / max (s) | busy rollout (s) |\n")
	b.WriteString("|---:|---|---:|---:|---:|\n")
	for i, r := range results {
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s |\n", i+1, r.runSpec,
			times(r.quiet.toReplicaSet, r.quiet.missing), times(r.quiet.toAvailable, r.quiet.missing), r.rollout)
	}
	return b.String()
}

// groups gathers the results of each group (a pair, or a triple with ours
// without lanes) into a pair; a group with a run missing is left out.
func groups(results []result) []pair {
	byGroup := map[int]*pair{}
	var order []int
	for _, r := range results {
		p, ok := byGroup[r.group]
		if !ok {
			p = &pair{}
			byGroup[r.group] = p
			order = append(order, r.group)
		}
		switch {
		case r.fifo:
			p.fifo = r
		case r.controller == ours:
			p.ours = r
		default:
			p.upstream = r
		}
	}
	var out []pair
	for _, g := range order {
		if p := byGroup[g]; p.ours.deployments > 0 && p.upstream.deployments > 0 && p.fifo.deployments > 0 {
			out = append(out, *p)
		}
	}
	return out
}

// neighbourTargets are issue 48's.
var neighbourTargets = []target{
	{figure{"quiet Deployments' p90 create→ReplicaSet, ours / upstream's", 0.1, "×"}, func(p pair) float64 {
		return ratio(percentile(p.ours.quiet.toReplicaSet, p.ours.quiet.missing, 90), percentile(p.upstream.quiet.toReplicaSet, p.upstream.quiet.missing, 90))
	}},
	{figure{"quiet Deployments' p90 create→available, ours / upstream's", 0, "×"}, func(p pair) float64 {
		return ratio(percentile(p.ours.quiet.toAvailable, p.ours.quiet.missing, 90), percentile(p.upstream.quiet.toAvailable, p.upstream.quiet.missing, 90))
	}},
	{figure{"busy rollout time, ours / ours without lanes", 1.05, "×"}, func(p pair) float64 {
		return ratio(p.ours.rollout.elapsed.Seconds(), p.fifo.rollout.elapsed.Seconds())
	}},
	{figure{"busy rollout time, ours / upstream's", 0, "×"}, func(p pair) float64 {
		return ratio(p.ours.rollout.elapsed.Seconds(), p.upstream.rollout.elapsed.Seconds())
	}},
	cpuTarget(0),
}
