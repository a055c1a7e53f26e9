package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/controller/envtest"
)

// The conditions both controllers run under: kube-controller-manager's
// default workers, and a client rate limit high enough that neither waits
// for tokens (kube-controller-manager's burst is twice its QPS); in the
// neighbours mode, kube-controller-manager's default limit, under which
// every write waits for a token.
const (
	workers      = 5
	qps          = 500
	burst        = 1000
	defaultQPS   = 20
	defaultBurst = 30
	// createWorkers are the benchmark's concurrent creates and patches.
	createWorkers = 50
	// phaseTimeout gives up a phase that has not finished by then.
	phaseTimeout = 20 * time.Minute
	// podsPerNode is a kwok node's pod capacity (see controller/envtest).
	podsPerNode = 1000
	imageV1     = "registry.example/scalebench:v1"
	imageV2     = "registry.example/scalebench:v2"
)

// controllerKind names a Deployment controller under test.
type controllerKind string

const (
	ours     controllerKind = "ours"
	upstream controllerKind = "upstream"
)

// runSpec is one run: a controller and, for ours as a shard ring, the
// ring's size (0: not sharded); fifo runs ours with --namespace-lanes=false.
type runSpec struct {
	controller controllerKind
	members    int
	fifo       bool
}

func (s runSpec) String() string {
	switch {
	case s.members > 0:
		return fmt.Sprintf("ring of %d", s.members)
	case s.fifo:
		return string(s.controller) + " without lanes"
	}
	return string(s.controller)
}

// phaseResult is how one phase went: available < total means it timed
// out, total 0 that it never ran.
type phaseResult struct {
	elapsed          time.Duration
	available, total int
}

func (p phaseResult) done() bool { return p.total > 0 && p.available == p.total }

// result is one run's measurements.
type result struct {
	runSpec
	group                 int // the pair (or triple) the run belongs to, from 0
	deployments, replicas int
	create, rollout       phaseResult
	// cpu is the Deployment controller processes' CPU-seconds
	// (process_cpu_seconds_total) in each phase.
	cpu struct{ create, rollout float64 }
	// reads are the Deployment controller processes' GET requests (gets,
	// lists and watches: rest_client_requests_total) from their start to
	// the rollout's end: an informer-based controller's initial lists and
	// watches, and every read it makes beside its informers.
	reads int
	// quiet are the neighbours mode's quiet Deployments' times.
	quiet quietResult
	// apiWrites are the Deployment controller's writes other than events,
	// as kube-apiserver counted them, and conflicts those of them it
	// answered with 409 Conflict.
	apiWrites, conflicts writes
	// events is the number of event writes (see countEvents).
	events int
	// reconciles are ours' completed reconciles
	// (controller_runtime_reconcile_total), -1 for upstream's, which
	// exports no such count.
	reconciles int
	// members are what each replica of a ring reported at the end, in ID
	// order.
	members []memberReport
	// memory is the memory mode's measurements.
	memory memoryResult
}

// finished reports whether every phase of r that ran finished: the create
// always runs, the rollout unless -rollout=false.
func (r result) finished() bool {
	return r.create.done() && (r.rollout.total == 0 || r.rollout.done())
}

// totalWrites are the Deployment controller's writes, events included.
func (r result) totalWrites() int { return r.apiWrites.total() + r.events }

// nodeCount is room for every pod twice over: a rollout briefly holds old,
// new and terminating pods.
func (c config) nodeCount() int {
	return max(1, (2*c.deployments*(c.replicas+1)+podsPerNode-1)/podsPerNode)
}

// namespaceOf is the namespace of the i-th Deployment: in the neighbours
// mode the busy one, else ns-0, ns-1, ... in turn.
func (c config) namespaceOf(i int) string {
	if c.mode == "neighbours" {
		return busyNamespace
	}
	return fmt.Sprintf("ns-%d", i%c.namespaces)
}

// namespaceNames are the namespaces a run creates.
func (c config) namespaceNames() []string {
	if c.mode == "neighbours" {
		return []string{busyNamespace, quietNamespace}
	}
	names := make([]string, c.namespaces)
	for i := range names {
		names[i] = c.namespaceOf(i)
	}
	return names
}

func deploymentName(i int) string { return fmt.Sprintf("bench-%05d", i) }

// benchmark makes one run on a control plane of its own.
func benchmark(ctx context.Context, cfg config, spec runSpec, dir string, log io.Writer) (res result, err error) {
	res = result{runSpec: spec, deployments: cfg.deployments, replicas: cfg.replicas}
	// Upstream's Deployment controller runs in a kube-controller-manager
	// of its own (startKCM), so that its process's CPU is its own.
	opts := envtest.Options{
		Mode: envtest.Full, Nodes: cfg.nodeCount(), Dir: dir, Log: log, KCMQPS: qps,
		Controllers: []string{"replicaset", "garbagecollector"},
	}
	if spec.members > 0 {
		// The API server then sends each replica only its shard.
		opts.FeatureGates = map[string]bool{"ShardedListAndWatch": true}
	}
	cp, err := envtest.Start(ctx, opts)
	if err != nil {
		return res, err
	}
	defer func() { err = errors.Join(err, cp.Stop()) }()

	rc := cp.RESTConfig()
	rc.UserAgent = "ctrlkit-scalebench"
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return res, err
	}
	// Before our controller starts: a ring may divide the namespaces
	// that exist.
	for _, name := range cfg.namespaceNames() {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if _, err := client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
			return res, fmt.Errorf("create namespace: %w", err)
		}
	}
	track := newTracker()
	watchCtx, stopWatch := context.WithCancel(ctx)
	factory := informers.NewSharedInformerFactory(client, 0)
	defer func() {
		stopWatch()
		factory.Shutdown()
	}()
	quiet := newQuietTracker()
	if _, err := factory.Apps().V1().Deployments().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { track.observe(obj); quiet.observeDeployment(obj) },
		UpdateFunc: func(_, obj any) { track.observe(obj); quiet.observeDeployment(obj) },
	}); err != nil {
		return res, err
	}
	if cfg.mode == "neighbours" {
		if _, err := factory.Apps().V1().ReplicaSets().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc: quiet.observeReplicaSet,
		}); err != nil {
			return res, err
		}
	}
	factory.Start(watchCtx.Done())
	factory.WaitForCacheSync(watchCtx.Done())

	// The processes under test: ours, or a second kube-controller-manager
	// running only its Deployment controller.
	var procs []*process
	switch spec.controller {
	case ours:
		fmt.Fprintf(log, "scalebench %s: starting our controller (logs in %s, kept with -dir)\n", spec, cp.Dir())
		procs, err = startOurs(ctx, cfg, cp, cp.Dir(), spec)
	case upstream:
		var kcm *process
		kcm, err = startKCM(ctx, cfg, cp, cp.Dir())
		procs = []*process{kcm}
	}
	if err != nil {
		return res, err
	}
	defer func() { err = errors.Join(err, stopAll(procs)) }()
	if cfg.load {
		fmt.Fprintf(log, "scalebench %s: a busy loop on each of %d cores from the first create to the end of the rollout\n", spec, runtime.NumCPU())
		stopLoad, err := startLoad()
		if err != nil {
			return res, err
		}
		defer func() { err = errors.Join(err, stopLoad()) }()
	}

	// The benchmark's own requests, to subtract: every attempt, since the
	// API server counts a retried one again.
	var creates, patches atomic.Int64
	before, err := scrapeWrites(ctx, client)
	if err != nil {
		return res, err
	}
	beforeCreate, err := processUsageOf(ctx, procs)
	if err != nil {
		return res, err
	}
	where := fmt.Sprintf("%d namespaces", cfg.namespaces)
	if cfg.mode == "neighbours" {
		where = "namespace " + busyNamespace
	}
	fmt.Fprintf(log, "scalebench %s: creating %d Deployments of %d replicas in %s\n", spec, cfg.deployments, cfg.replicas, where)
	track.startPhase(imageV1)
	if res.create, err = runPhase(ctx, cfg.deployments, track, log, fmt.Sprint(spec, " create"), func(ctx context.Context, i int) error {
		return createDeployment(ctx, client, cfg.namespaceOf(i), deploymentName(i), cfg.replicas, &creates)
	}); err != nil {
		return res, err
	}
	afterCreate, err := processUsageOf(ctx, procs)
	if err != nil {
		return res, err
	}
	res.cpu.create = afterCreate.cpu - beforeCreate.cpu
	afterRollout := afterCreate
	if res.create.done() && !cfg.noRollout {
		track.startPhase(imageV2)
		profiled := profileRollout(ctx, procs, cp.Dir())
		var quietDone <-chan error
		if cfg.mode == "neighbours" {
			quietDone = createQuiet(ctx, client, cfg, quiet, &creates)
		}
		if res.rollout, err = runPhase(ctx, cfg.deployments, track, log, fmt.Sprint(spec, " rollout"), func(ctx context.Context, i int) error {
			return setImage(ctx, client, cfg.namespaceOf(i), i, imageV2, &patches)
		}); err != nil {
			return res, err
		}
		if afterRollout, err = processUsageOf(ctx, procs); err != nil {
			return res, err
		}
		res.cpu.rollout = afterRollout.cpu - afterCreate.cpu
		keepDiagnostics(ctx, procs, client, cp.Dir(), log)
		if err := <-profiled; err != nil {
			fmt.Fprintf(log, "scalebench %s: no CPU profile of the rollout: %v\n", spec, err)
		}
		if quietDone != nil {
			if res.quiet, err = quiet.wait(ctx, quietDone, cfg.quiet, log); err != nil {
				return res, err
			}
		}
	}
	res.reads = int(afterRollout.reads)
	after, err := settledWrites(ctx, client, log)
	if err != nil {
		return res, err
	}
	served := after.minus(before)
	own := writes{{"POST", "deployments"}: int(creates.Load()), {"PATCH", "deployments"}: int(patches.Load())}
	res.apiWrites = served.all.minus(own)
	res.conflicts = served.conflicts
	if res.events, err = countEvents(ctx, client, cp.Dir()); err != nil {
		return res, err
	}
	res.reconciles = -1
	if spec.controller == ours {
		if res.reconciles, err = reconciles(ctx, procs); err != nil {
			return res, err
		}
	}
	if spec.members > 0 {
		// While every replica still runs: none has seen another leave.
		res.members, err = reports(ctx, procs)
	}
	if cfg.mode == "memory" {
		restart := func(ctx context.Context, dir string) (*process, error) { return startKCM(ctx, cfg, cp, dir) }
		if spec.controller == ours {
			restart = func(ctx context.Context, dir string) (*process, error) {
				procs, err := startOurs(ctx, cfg, cp, dir, spec)
				if err != nil {
					return nil, err
				}
				return procs[0], nil
			}
		}
		res.memory, err = measureMemory(ctx, cfg, cp.Dir(), procs[0], restart, log)
	}
	return res, err
}

// runDir is where a run keeps its files under cfg.dir: "" (temporary)
// without -dir.
func (c config) runDir(i int, spec runSpec) string {
	if c.dir == "" {
		return ""
	}
	return filepath.Join(c.dir, fmt.Sprintf("%02d-%s", i+1, strings.ReplaceAll(spec.String(), " ", "-")))
}

// settledWrites waits until the Deployment controller's writes stop (the
// last status updates may land after the last Deployment is available),
// polling kube-apiserver's metrics for up to a minute, and returns its
// last counts.
func settledWrites(ctx context.Context, client kubernetes.Interface, log io.Writer) (serverWrites, error) {
	prev, err := scrapeWrites(ctx, client)
	if err != nil {
		return serverWrites{}, err
	}
	var changed writes
	err = wait.PollUntilContextTimeout(ctx, 2*time.Second, time.Minute, false, func(ctx context.Context) (bool, error) {
		cur, err := scrapeWrites(ctx, client)
		if err != nil {
			return false, err
		}
		changed, prev = cur.all.minus(prev.all), cur
		return len(changed) == 0, nil
	})
	if wait.Interrupted(err) && ctx.Err() == nil {
		fmt.Fprintf(log, "scalebench: Deployment controller writes still going after a minute (%s); counting up to now\n", changed.join(", "))
		err = nil
	}
	return prev, err
}

// eventSource is the component both controllers' events come from.
const eventSource = "deployment-controller"

// countEvents returns how many event writes the Deployment controller
// made: each Event it recorded, counted as often as it occurred (a repeat
// is a PATCH of the same Event). It keeps them in dir as events.tsv, one
// line each: object, reason, count, when the recorder made it and when
// kube-apiserver stored it (RFC 3339, whole seconds), message.
func countEvents(ctx context.Context, client kubernetes.Interface, dir string) (int, error) {
	list, err := client.CoreV1().Events(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, fmt.Errorf("list events: %w", err)
	}
	n := 0
	var tsv bytes.Buffer
	for _, e := range list.Items {
		if e.Source.Component == eventSource || e.ReportingController == eventSource {
			n += max(1, int(e.Count))
			fmt.Fprintf(&tsv, "%s/%s/%s\t%s\t%d\t%s\t%s\t%s\n", e.InvolvedObject.Kind, e.InvolvedObject.Namespace, e.InvolvedObject.Name,
				e.Reason, e.Count, e.FirstTimestamp.UTC().Format(time.RFC3339), e.CreationTimestamp.UTC().Format(time.RFC3339), e.Message)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "events.tsv"), tsv.Bytes(), 0o644); err != nil {
		return 0, fmt.Errorf("keep the events: %w", err)
	}
	return n, nil
}
