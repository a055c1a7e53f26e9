package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ctrlkit/ctrlkit/controller/sharding"
)

// replicaArg, as the first argument, makes scalebench one replica of our
// Deployment controller in a shard ring instead of the benchmark: -shards
// starts it as a process of its own (see startReplicas), so that each
// replica's heap is its own. It is not in the usage.
const replicaArg = "__replica"

// The lines a replica prints on its stdout, one JSON object each.
const (
	readyEvent  = "ready"  // caches synced, the ring complete, the whole target served
	reportEvent = "report" // the measurements, asked for with reportCommand
)

// reportCommand, a line on a replica's stdin, asks it for its report.
// The end of stdin (the benchmark closed it, or died) or SIGTERM makes
// it report, unless it has, and exit.
const reportCommand = "report"

// replicaConfig is a replica's command line.
type replicaConfig struct {
	kubeconfig     string
	ring, id       string
	leaseNamespace string
	members        int // the ring is complete at this many members
	workers        int
	qps            float64
	burst          int
	gogc           int
}

func parseReplicaFlags(args []string, output io.Writer) (replicaConfig, error) {
	fs := flag.NewFlagSet("scalebench "+replicaArg, flag.ContinueOnError)
	fs.SetOutput(output)
	var c replicaConfig
	fs.StringVar(&c.kubeconfig, "kubeconfig", "", "kubeconfig of the control plane")
	fs.StringVar(&c.ring, "ring", "scalebench", "shard ring name")
	fs.StringVar(&c.id, "id", "", "ring member ID")
	fs.StringVar(&c.leaseNamespace, "lease-namespace", metav1.NamespaceSystem, "namespace of the ring's Leases")
	fs.IntVar(&c.members, "members", 1, "ring members to wait for before reporting ready")
	fs.IntVar(&c.workers, "workers", 5, "Deployment workers")
	fs.Float64Var(&c.qps, "qps", 500, "client QPS")
	fs.IntVar(&c.burst, "burst", 1000, "client burst")
	fs.IntVar(&c.gogc, "gogc", 100, "GC percent")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.kubeconfig == "" || c.id == "" || c.members <= 0 {
		return c, errors.New("-kubeconfig, -id and a positive -members are required")
	}
	return c, nil
}

// replicaReport is one line of a replica's stdout.
type replicaReport struct {
	Event   string `json:"event"` // readyEvent or reportEvent
	ID      string `json:"id"`
	Members int    `json:"members"` // as this replica saw the ring
	// RangeFraction is the share of the hash space in its target range.
	RangeFraction float64 `json:"rangeFraction"`
	// The rest is in reports only.
	// Cached is each informer's store length, by resource.
	Cached map[string]int `json:"cached,omitempty"`
	// HeapInuse and HeapAlloc are runtime.MemStats' after a runtime.GC.
	HeapInuse uint64 `json:"heapInuseBytes,omitempty"`
	HeapAlloc uint64 `json:"heapAllocBytes,omitempty"`
	// ListBytes and WatchBytes are the response bodies received by the
	// controller's client (see byteCounter); the ring's own Lease traffic
	// goes through another client and is not counted.
	ListBytes  int64 `json:"listBytes"`
	WatchBytes int64 `json:"watchBytes"`
	// Writes are the writes the controller's client sent.
	Writes []writeCount `json:"writes,omitempty"`
}

// writeCount is one entry of writes, as JSON.
type writeCount struct {
	Verb     string `json:"verb"`
	Resource string `json:"resource"`
	Count    int    `json:"count"`
}

func (r replicaReport) cachedTotal() int {
	n := 0
	for _, c := range r.Cached {
		n += c
	}
	return n
}

func (r replicaReport) writes() writes {
	w := writes{}
	for _, c := range r.Writes {
		w[writeKey{Verb: c.Verb, Resource: c.Resource}] += c.Count
	}
	return w
}

func writeCounts(w writes) []writeCount {
	out := make([]writeCount, 0, len(w))
	for k, n := range w {
		out = append(out, writeCount{Verb: k.Verb, Resource: k.Resource, Count: n})
	}
	slices.SortFunc(out, func(a, b writeCount) int {
		return strings.Compare(a.Resource+" "+a.Verb, b.Resource+" "+b.Verb)
	})
	return out
}

// parseReplicaOutput reads a replica's stdout so far: whether it has
// reported ready, and its report if it has printed one. An unfinished last
// line (still being written) is ignored.
func parseReplicaOutput(data []byte) (ready bool, report *replicaReport, err error) {
	lines := strings.SplitAfter(string(data), "\n")
	for _, line := range lines {
		if !strings.HasSuffix(line, "\n") || strings.TrimSpace(line) == "" {
			continue
		}
		var r replicaReport
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return false, nil, fmt.Errorf("replica output line %q: %w", strings.TrimSpace(line), err)
		}
		switch r.Event {
		case readyEvent:
			ready = true
		case reportEvent:
			report = &r
		default:
			return false, nil, fmt.Errorf("replica output line %q: unknown event", strings.TrimSpace(line))
		}
	}
	return ready, report, nil
}

// runReplica is the replica mode: our Deployment controller as one member
// of a shard ring, its Deployment, ReplicaSet and Pod informers caching
// only its namespaces (newOurController, as startOurs). It runs
// until ctx ends or stdin closes, printing readyEvent, then a report when
// asked (see replicaLoop).
func runReplica(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, err := parseReplicaFlags(args, stderr)
	if err != nil {
		return err
	}
	debug.SetGCPercent(cfg.gogc)
	base, err := clientcmd.BuildConfigFromFlags("", cfg.kubeconfig)
	if err != nil {
		return err
	}
	var (
		writesSent = newWriteCounter()
		received   = &byteCounter{}
	)
	// The ring's Lease rounds are not the informers' traffic: a client of
	// their own, uncounted.
	ringConfig := rest.CopyConfig(base)
	ringConfig.UserAgent = "ctrlkit-scalebench/ring/" + cfg.id
	ringClient, err := kubernetes.NewForConfig(ringConfig)
	if err != nil {
		return err
	}

	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	ring, err := sharding.New(sharding.Options{
		Client: ringClient, Namespace: cfg.leaseNamespace, Name: cfg.ring, ID: cfg.id,
	})
	if err != nil {
		return err
	}
	ours, err := newOurController(base, cfg.qps, cfg.burst, cfg.workers, eventSource+"/"+cfg.id, ring, writesSent.wrap, received.wrap)
	if err != nil {
		return err
	}
	defer ours.shutdown()
	ctrl, factory := ours.ctrl, ours.factory
	// NewController registered the ring's sharded informers in factory.
	stores := map[string]cache.Store{
		"deployments": factory.Apps().V1().Deployments().Informer().GetStore(),
		"replicasets": factory.Apps().V1().ReplicaSets().Informer().GetStore(),
		"pods":        factory.Core().V1().Pods().Informer().GetStore(),
	}
	ringDone := make(chan error, 1)
	go func() { ringDone <- ring.Run(runCtx) }()
	factory.Start(runCtx.Done())
	var ctrlErr error
	ctrlStopped := make(chan struct{})
	go func() {
		defer close(ctrlStopped)
		ctrlErr = ctrl.Run(runCtx)
	}()

	ready := func() bool {
		target, _ := ring.Target()
		return ctrl.HasSynced() && len(ring.Members()) == cfg.members && !target.Empty() && ring.Serving() == target
	}
	status := func(event string) replicaReport {
		target, _ := ring.Target()
		return replicaReport{Event: event, ID: cfg.id, Members: len(ring.Members()), RangeFraction: target.Fraction()}
	}
	report := func() replicaReport {
		return measure(status(reportEvent), stores, received, writesSent)
	}
	// Either ending stops both: the controller's reconciles end, then the
	// ring hands its range back and releases its Lease.
	loopErr := replicaLoop(ctx, stdin, stdout, ready, func() replicaReport { return status(readyEvent) }, report, ctrlStopped)
	cancel()
	<-ctrlStopped
	return errors.Join(loopErr, ctrlErr, <-ringDone)
}

// measure completes r with the stores' lengths, the heap after a GC, and
// the bytes and writes counted so far.
func measure(r replicaReport, stores map[string]cache.Store, received *byteCounter, sent *writeCounter) replicaReport {
	r.Cached = make(map[string]int, len(stores))
	for name, s := range stores {
		r.Cached[name] = len(s.ListKeys())
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	r.HeapInuse, r.HeapAlloc = ms.HeapInuse, ms.HeapAlloc
	r.ListBytes, r.WatchBytes = received.list.Load(), received.watch.Load()
	r.Writes = writeCounts(sent.snapshot())
	return r
}

// replicaLoop prints the ready line once ready() holds, and a report for
// each reportCommand line on stdin. It returns when ctx ends (SIGTERM) or
// stdin closes, after printing a report if none has been printed, or when
// the controller stops (stopped is closed) with an error.
func replicaLoop(ctx context.Context, stdin io.Reader, out io.Writer, ready func() bool, readyLine, report func() replicaReport, stopped <-chan struct{}) error {
	commands := make(chan string)
	closed := make(chan struct{})
	quit := make(chan struct{})
	defer close(quit)
	// Blocked in a read of stdin, this goroutine outlives the loop until
	// stdin closes; in a replica process, the process ends first.
	go func() {
		defer close(closed)
		scanner := bufio.NewScanner(stdin)
		for scanner.Scan() {
			select {
			case commands <- strings.TrimSpace(scanner.Text()):
			case <-quit:
				return
			}
		}
	}()
	var (
		isReady, reported bool
		writeErr          error
	)
	emit := func(r replicaReport) {
		line, err := json.Marshal(r)
		if err == nil {
			_, err = fmt.Fprintf(out, "%s\n", line)
		}
		writeErr = errors.Join(writeErr, err)
	}
	poll := time.NewTicker(100 * time.Millisecond)
	defer poll.Stop()
	for {
		if !isReady && ready() {
			isReady = true
			emit(readyLine())
		}
		select {
		case cmd := <-commands:
			if cmd == reportCommand {
				emit(report())
				reported = true
			}
		case <-closed:
			if !reported {
				emit(report())
			}
			return writeErr
		case <-ctx.Done():
			if !reported {
				emit(report())
			}
			return writeErr
		case <-stopped:
			return errors.Join(errors.New("the Deployment controller stopped"), writeErr)
		case <-poll.C:
		}
	}
}
