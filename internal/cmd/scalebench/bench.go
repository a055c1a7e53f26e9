package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller/envtest"
)

const (
	namespace = "scalebench"
	imageV1   = "registry.example/scalebench:v1"
	imageV2   = "registry.example/scalebench:v2"
)

// phaseResult is how one phase went. available < total means it timed out.
type phaseResult struct {
	elapsed          time.Duration
	available, total int
}

// result is one controller's measurements.
type result struct {
	controller            controllerKind
	deployments, replicas int
	create, rollout       phaseResult
	// apiWrites are the Deployment controller's writes, other than events,
	// as kube-apiserver counted them (see byDeploymentController), and
	// apiFailed those of them that failed (mostly 409 Conflict).
	apiWrites, apiFailed writes
	// events is the number of event writes: the sum of the counts of the
	// Events the Deployment controller recorded.
	events int
	// clientWrites are the writes our controller's client sent (all its
	// replicas' together); nil for upstream's.
	clientWrites writes
	// replicaCount is the number of replica processes of a sharded run
	// (0: the controller ran in this process or in kcm), and
	// replicaReports what each reported at the end, in ID order.
	replicaCount   int
	replicaReports []replicaReport
}

// label names the run: the controller, and the ring's size if sharded.
func (r result) label() string {
	if r.controller == sharded {
		return fmt.Sprintf("%s %d", r.controller, r.replicaCount)
	}
	return string(r.controller)
}

// namespaceOf is the namespace of the i-th Deployment: round-robin over
// -namespaces of them, or namespace alone.
//
// The number comes first: a ring assigns contiguous ranges of the FNV-1a
// hash of the namespace (sharding.KeyHash, the API server's), whose top
// bits hardly depend on a name's last bytes, so that names differing only
// at the end (scalebench-000, scalebench-001, ...) all land in one range.
func (c config) namespaceOf(i int) string {
	if c.namespaces <= 1 {
		return namespace
	}
	return fmt.Sprintf("s%03d-%s", i%c.namespaces, namespace)
}

// namespaceNames are the benchmark's namespaces.
func (c config) namespaceNames() []string {
	names := make([]string, 0, max(1, c.namespaces))
	for i := range max(1, c.namespaces) {
		names = append(names, c.namespaceOf(i))
	}
	return names
}

// watchNamespace is the namespace to list and watch the benchmark's
// objects in: all of them ("") when there are several.
func (c config) watchNamespace() string {
	if c.namespaces <= 1 {
		return namespace
	}
	return metav1.NamespaceAll
}

// benchmark measures one controller on a control plane of its own.
func benchmark(ctx context.Context, cfg config, spec runSpec, log io.Writer) (res result, err error) {
	kind := spec.kind
	res = result{controller: kind, deployments: cfg.deployments, replicas: cfg.replicas, replicaCount: spec.replicas}
	name := res.label()
	opts := envtest.Options{
		Mode:        envtest.Full,
		Nodes:       cfg.nodeCount(),
		Controllers: []string{"replicaset", "garbagecollector"},
		KCMQPS:      float32(cfg.qps),
		Log:         log,
	}
	if kind == upstream {
		opts.Controllers = append(opts.Controllers, "deployment")
	}
	if kind == sharded {
		// Both ring sizes: the API server selects each replica's shard.
		opts.FeatureGates = map[string]bool{"ShardedListAndWatch": true}
	}
	if cfg.dir != "" {
		opts.Dir = filepath.Join(cfg.dir, strings.ReplaceAll(strings.ReplaceAll(name, ",", ""), " ", "-"))
	}
	cp, err := envtest.Start(ctx, opts)
	if err != nil {
		return res, err
	}
	defer func() { err = errors.Join(err, cp.Stop()) }()

	// The benchmark's own writes go through a counter too, to be subtracted.
	benchWrites := newWriteCounter()
	rc := cp.RESTConfig()
	rc.UserAgent = "ctrlkit-scalebench"
	rc.Wrap(benchWrites.wrap)
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return res, err
	}
	for _, ns := range cfg.namespaceNames() {
		if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			return res, fmt.Errorf("create namespace: %w", err)
		}
	}

	track := newTracker()
	watchCtx, stopWatch := context.WithCancel(ctx)
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(cfg.watchNamespace()))
	defer func() {
		stopWatch()
		factory.Shutdown()
	}()
	if _, err := factory.Apps().V1().Deployments().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    track.observe,
		UpdateFunc: func(_, obj any) { track.observe(obj) },
	}); err != nil {
		return res, err
	}
	factory.Start(watchCtx.Done())
	factory.WaitForCacheSync(watchCtx.Done())

	if kind == ours {
		ctrl, startErr := startOurs(ctx, cp.RESTConfig(), cfg)
		if startErr != nil {
			return res, startErr
		}
		// Assigns the named result: a controller that fails to stop fails the run.
		defer func() { err = errors.Join(err, ctrl.stop()) }()
		gcBefore := readGC()
		defer func() {
			res.clientWrites = ctrl.counter.snapshot()
			fmt.Fprintf(log, "scalebench ours: %s\n", ctrl.summary())
			fmt.Fprintf(log, "scalebench ours: this process (GOGC %d): %s\n", cfg.gogc, readGC().since(gcBefore))
		}()
	}

	if kind == upstream && cfg.idleInformers {
		stopIdle, err := startIdleInformers(ctx, cp.RESTConfig(), cfg)
		if err != nil {
			return res, err
		}
		defer stopIdle()
		fmt.Fprintf(log, "scalebench %s: our controller's informers run in this process, unread\n", name)
	}

	var replicas replicaGroup
	if kind == sharded {
		if replicas, err = startReplicas(cfg, cp.KubeconfigPath(), spec.replicas, cp.Dir()); err != nil {
			return res, err
		}
		defer func() { err = errors.Join(err, replicas.stop(replicaStopTimeout)) }()
		fmt.Fprintf(log, "scalebench %s: waiting for %d replicas (logs in %s) to sync and share the ring\n", name, spec.replicas, cp.Dir())
		if err := replicas.waitReady(ctx, replicaReadyTimeout); err != nil {
			return res, err
		}
	}

	if kind == ours && cfg.cpuProfile != "" {
		stopProfile, err := startCPUProfile(cfg.cpuProfile)
		if err != nil {
			return res, err
		}
		defer func() { err = errors.Join(err, stopProfile()) }()
	}

	before, err := scrapeWrites(ctx, client)
	if err != nil {
		return res, err
	}

	fmt.Fprintf(log, "scalebench %s: creating %d Deployments of %d replicas in %d namespaces\n", name, cfg.deployments, cfg.replicas, len(cfg.namespaceNames()))
	cpu := newCPUReport(log, name)
	track.startPhase(imageV1)
	if res.create, err = runPhase(ctx, cfg, track, log, name+" create", func(ctx context.Context, i int) error {
		return createDeployment(ctx, client, cfg.namespaceOf(i), i, cfg.replicas)
	}); err != nil {
		return res, err
	}
	cpu.phaseDone("create")
	if res.create.available == res.create.total {
		fmt.Fprintf(log, "scalebench %s: rolling every Deployment to a new image\n", name)
		track.startPhase(imageV2)
		if res.rollout, err = runPhase(ctx, cfg, track, log, name+" rollout", func(ctx context.Context, i int) error {
			return setImage(ctx, client, cfg.namespaceOf(i), i, imageV2)
		}); err != nil {
			return res, err
		}
		cpu.phaseDone("rollout")
	}

	after, err := settledWrites(ctx, client, log)
	if err != nil {
		return res, err
	}
	// The benchmark's own creates and patches all succeeded (they would
	// have been retried otherwise, and counted again).
	ownWrites := benchWrites.snapshot().filter(byDeploymentController)
	served := after.minus(before)
	res.apiWrites = served.all.filter(byDeploymentController).minus(ownWrites)
	res.apiFailed = served.failed.filter(byDeploymentController)
	fmt.Fprintf(log, "scalebench %s: kube-apiserver's mean time to serve the Deployment controller's writes: %s\n", name, served.meanLatency(res.apiWrites))
	if res.events, err = countEvents(ctx, client, cfg.watchNamespace()); err != nil {
		return res, err
	}
	if kind == sharded {
		// Asked for while every replica still runs, so that none sees
		// another leave the ring (and relist) before it reports.
		if res.replicaReports, err = replicas.reports(ctx, replicaReportTimeout); err != nil {
			return res, err
		}
		res.clientWrites = writes{}
		for _, r := range res.replicaReports {
			for k, n := range r.writes() {
				res.clientWrites[k] += n
			}
		}
	}
	if kind == upstream {
		// kcm's side of what our controller's summary shows: how often it
		// synced, and how long syncs and waits took.
		if text, err := cp.ControllerManagerMetrics(ctx); err != nil {
			fmt.Fprintf(log, "scalebench upstream: %v\n", err)
		} else if s, err := queueSummary(text, "deployment"); err != nil {
			fmt.Fprintf(log, "scalebench upstream: %v\n", err)
		} else {
			fmt.Fprintf(log, "scalebench upstream: %s\n", s)
		}
	}
	return res, nil
}

// runPhase makes write(i) for every Deployment i with cfg.createWorkers
// concurrent requests, then waits until the tracker counts every Deployment
// available, or cfg.phaseTimeout passes: then it returns how far it got.
func runPhase(ctx context.Context, cfg config, track *tracker, log io.Writer, name string, write func(context.Context, int) error) (phaseResult, error) {
	n := cfg.deployments
	began := time.Now()
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		errOnce  sync.Once
		writeErr = make(chan error, 1)
	)
	// On the way out, stop the writers (a timed-out phase may still have
	// some), then wait for them.
	defer wg.Wait()
	writeCtx, stopWrites := context.WithCancel(ctx)
	defer stopWrites()
	for range min(cfg.createWorkers, n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				if err := write(writeCtx, i); err != nil {
					errOnce.Do(func() { writeErr <- err })
					return
				}
			}
		})
	}

	deadline := time.NewTimer(cfg.phaseTimeout)
	defer deadline.Stop()
	poll := time.NewTicker(100 * time.Millisecond)
	defer poll.Stop()
	lastReport := began
	for {
		count, last := track.progress()
		if count == n {
			r := phaseResult{elapsed: last.Sub(began), available: n, total: n}
			fmt.Fprintf(log, "scalebench %s: all %d available after %.1fs\n", name, n, r.elapsed.Seconds())
			return r, nil
		}
		if time.Since(lastReport) >= 10*time.Second {
			lastReport = time.Now()
			fmt.Fprintf(log, "scalebench %s: %d/%d available after %.0fs\n", name, count, n, time.Since(began).Seconds())
		}
		select {
		case err := <-writeErr:
			return phaseResult{}, fmt.Errorf("%s: %w", name, err)
		case <-ctx.Done():
			return phaseResult{}, ctx.Err()
		case <-deadline.C:
			fmt.Fprintf(log, "scalebench %s: timed out after %s with %d/%d available\n", name, cfg.phaseTimeout, count, n)
			return phaseResult{elapsed: cfg.phaseTimeout, available: count, total: n}, nil
		case <-poll.C:
		}
	}
}

// retriable reports whether a failed benchmark write is worth repeating.
func retriable(err error) bool {
	return !apierrors.IsInvalid(err) && !apierrors.IsBadRequest(err) && !apierrors.IsForbidden(err) && !errors.Is(err, context.Canceled)
}

func deploymentName(i int) string { return fmt.Sprintf("bench-%05d", i) }

// createDeployment creates the i-th Deployment on imageV1. A create that
// already happened (its response lost, then retried) counts as done.
func createDeployment(ctx context.Context, client kubernetes.Interface, namespace string, i, replicas int) error {
	name := deploymentName(i)
	labels := map[string]string{"app": name}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(int32(replicas)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "app", Image: imageV1}},
					// kwok deletes pods at once; no grace period to wait out.
					TerminationGracePeriodSeconds: ptr.To[int64](0),
				},
			},
		},
	}
	err := retry.OnError(retry.DefaultBackoff, retriable, func() error {
		_, err := client.AppsV1().Deployments(namespace).Create(ctx, d, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("create deployment %s: %w", name, err)
	}
	return nil
}

// setImage points the i-th Deployment's container at image with a JSON
// patch, which cannot conflict with the controller's status writes.
func setImage(ctx context.Context, client kubernetes.Interface, namespace string, i int, image string) error {
	name := deploymentName(i)
	patch := fmt.Appendf(nil, `[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":%q}]`, image)
	err := retry.OnError(retry.DefaultBackoff, retriable, func() error {
		_, err := client.AppsV1().Deployments(namespace).Patch(ctx, name, types.JSONPatchType, patch, metav1.PatchOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("patch deployment %s: %w", name, err)
	}
	return nil
}

// settledWrites waits until the Deployment controller's writes stop (the
// last status updates may land after the last Deployment is available),
// polling the API server's metrics, and returns its last counts.
func settledWrites(ctx context.Context, client kubernetes.Interface, log io.Writer) (serverWrites, error) {
	const (
		interval = 2 * time.Second
		limit    = time.Minute
	)
	began := time.Now()
	prev, err := scrapeWrites(ctx, client)
	if err != nil {
		return serverWrites{}, err
	}
	for {
		select {
		case <-ctx.Done():
			return serverWrites{}, ctx.Err()
		case <-time.After(interval):
		}
		cur, err := scrapeWrites(ctx, client)
		if err != nil {
			return serverWrites{}, err
		}
		changed := cur.all.minus(prev.all).filter(byDeploymentController)
		if len(changed) == 0 {
			return cur, nil
		}
		if time.Since(began) > limit {
			fmt.Fprintf(log, "scalebench: Deployment controller writes still going after %s (%s); counting up to now\n", limit, changed)
			return cur, nil
		}
		prev = cur
	}
}

// countEvents returns how many event writes the Deployment controller made:
// each Event it recorded, counted as often as it occurred (a repeat is a
// PATCH of the same Event).
func countEvents(ctx context.Context, client kubernetes.Interface, namespace string) (int, error) {
	n := 0
	err := listAll(ctx, func(opts metav1.ListOptions) (string, error) {
		list, err := client.CoreV1().Events(namespace).List(ctx, opts)
		if err != nil {
			return "", err
		}
		for _, e := range list.Items {
			if e.Source.Component == eventSource || e.ReportingController == eventSource {
				n += max(1, int(e.Count))
			}
		}
		return list.Continue, nil
	})
	if err != nil {
		return 0, fmt.Errorf("list events: %w", err)
	}
	return n, nil
}

// listAll calls list page by page.
func listAll(ctx context.Context, list func(metav1.ListOptions) (string, error)) error {
	opts := metav1.ListOptions{Limit: 500}
	for {
		next, err := list(opts)
		if err != nil || next == "" {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		opts.Continue = next
	}
}

// startCPUProfile profiles the process into path until the returned
// function is called.
func startCPUProfile(path string) (stop func() error, err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		return nil, errors.Join(err, f.Close())
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}
