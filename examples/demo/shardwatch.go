package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	"k8s.io/client-go/tools/cache"
)

// framePeriod is the shortest time between two printed ownership tables:
// a rollout of six Deployments changes something every few milliseconds.
const framePeriod = time.Second

// shardWatch is the demo's own, unsharded, view of its Deployments, to
// print the ownership table from.
type shardWatch struct {
	lister     appslisters.DeploymentLister
	changed    chan struct{}
	namespaces []string
	replicas   []*replica
}

// startShardWatch caches the Deployments of all namespaces until stop is
// called.
func startShardWatch(ctx context.Context, client kubernetes.Interface, namespaces []string, replicas []*replica) (*shardWatch, func(), error) {
	factory := informers.NewSharedInformerFactory(client, 0)
	inf := factory.Apps().V1().Deployments()
	w := &shardWatch{lister: inf.Lister(), changed: make(chan struct{}, 1), namespaces: namespaces, replicas: replicas}
	notify := func(any) {
		select {
		case w.changed <- struct{}{}:
		default:
		}
	}
	if _, err := inf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: notify, UpdateFunc: func(_, o any) { notify(o) }, DeleteFunc: notify,
	}); err != nil {
		return nil, nil, err
	}
	stopCh := make(chan struct{})
	stop := func() { close(stopCh); factory.Shutdown() }
	factory.Start(stopCh)
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			stop()
			return nil, nil, fmt.Errorf("cache of %v did not sync", typ)
		}
	}
	return w, stop, nil
}

// snapshot is the table now, and whether every Deployment has finished
// rolling out a spec of at least minGen[namespace].
func (w *shardWatch) snapshot(minGen map[string]int64) (rows []shardRow, done bool, err error) {
	owners := serving(w.replicas)
	done = true
	for _, ns := range w.namespaces {
		d, err := w.lister.Deployments(ns).Get(demoName)
		if err != nil && !apierrors.IsNotFound(err) {
			return nil, false, err
		}
		if d == nil {
			done = false
		} else if _, _, serr := statusOf(d); serr != nil {
			return nil, false, fmt.Errorf("namespace %s: %w", ns, serr)
		}
		progress, complete := progressOf(d)
		if !complete || d.Generation < minGen[ns] {
			done = false
		}
		rows = append(rows, shardRow{
			Namespace: ns, Owners: ownersOf(ns, owners), ReconciledBy: reconciledBy(ns, w.replicas),
			Image: imageOf(d), Progress: progress,
		})
	}
	return rows, done, nil
}

// waitRollouts prints the ownership table when it changes, at most once a
// framePeriod, until every rollout has finished (the last table is always
// printed), or timeout passes.
func (w *shardWatch) waitRollouts(ctx context.Context, minGen map[string]int64, timeout time.Duration, out io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	began := time.Now()
	// The ticker catches ring changes, which no informer reports, and
	// frames held back by framePeriod.
	tick := time.NewTicker(framePeriod / 4)
	defer tick.Stop()
	var last string
	var lastAt time.Time
	for {
		rows, done, err := w.snapshot(minGen)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		if err := renderOwnership(&buf, rows); err != nil {
			return err
		}
		if text := buf.String(); text != last && (done || time.Since(lastAt) >= framePeriod) {
			fmt.Fprintf(out, "  [%5.1fs]\n%s", time.Since(began).Seconds(), text)
			last, lastAt = text, time.Now()
		}
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("rollouts not finished after %s: %w", time.Since(began).Round(time.Second), ctx.Err())
		case <-w.changed:
		case <-tick.C:
		}
	}
}
