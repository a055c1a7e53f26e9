package benchmarks

// Side-by-side workqueue benchmarks: ctrlkit's workqueue, client-go's
// rate-limiting queue and controller-runtime's priority queue, in one run:
//
//	cd internal/benchmarks && go test -run '^$' -bench Workqueue -benchtime=3x -count=3 -benchmem
//
// All three run without metrics. See workqueue/README.md for results.

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	clientgoworkqueue "k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"

	"github.com/ctrlkit/ctrlkit/workqueue"
)

// benchQueue is what the benchmarks need from a queue.
type benchQueue interface {
	Add(key string)
	AddAfter(key string, d time.Duration)
	Get() (string, bool)
	Done(key string)
	Len() int
	ShutDown()
	// AddLow adds at low priority where the queue has priorities.
	AddLow(key string)
}

type impl struct {
	name string
	// make returns a queue; lanes asks for per-namespace fairness where the
	// queue supports it.
	make func(lanes bool) benchQueue
}

var impls = []impl{
	{"ctrlkit", func(lanes bool) benchQueue {
		o := workqueue.Options[string]{}
		if lanes {
			o.Lane = namespace
		}
		return ctrlkitQueue{workqueue.New(o)}
	}},
	{"clientgo", func(bool) benchQueue {
		// No name: client-go then skips metrics, like the others here.
		return clientgoQueue{clientgoworkqueue.NewTypedRateLimitingQueue(
			clientgoworkqueue.DefaultTypedControllerRateLimiter[string]())}
	}},
	{"controllerruntime", func(bool) benchQueue {
		return crQueue{priorityqueue.New[string]("bench", func(o *priorityqueue.Opts[string]) {
			o.MetricProvider = noopProvider{}
		})}
	}},
}

func namespace(key string) string {
	ns, _, _ := strings.Cut(key, "/")
	return ns
}

type ctrlkitQueue struct{ *workqueue.Queue[string] }

func (q ctrlkitQueue) AddLow(k string) {
	q.AddWithOpts(workqueue.AddOpts{Priority: workqueue.PriorityLow}, k)
}

type clientgoQueue struct {
	clientgoworkqueue.TypedRateLimitingInterface[string]
}

func (q clientgoQueue) AddLow(k string) { q.Add(k) }

type crQueue struct {
	priorityqueue.PriorityQueue[string]
}

var lowPriority = workqueue.PriorityLow

func (q crQueue) AddLow(k string) {
	q.AddWithOpts(priorityqueue.AddOpts{Priority: &lowPriority}, k)
}

// noopProvider keeps controller-runtime's queue from recording metrics.
type noopProvider struct{}

type noopMetric struct{}

func (noopMetric) Inc()            {}
func (noopMetric) Dec()            {}
func (noopMetric) Set(float64)     {}
func (noopMetric) Observe(float64) {}

func (noopProvider) NewDepthMetric(string) clientgoworkqueue.GaugeMetric       { return noopMetric{} }
func (noopProvider) NewAddsMetric(string) clientgoworkqueue.CounterMetric      { return noopMetric{} }
func (noopProvider) NewLatencyMetric(string) clientgoworkqueue.HistogramMetric { return noopMetric{} }
func (noopProvider) NewWorkDurationMetric(string) clientgoworkqueue.HistogramMetric {
	return noopMetric{}
}
func (noopProvider) NewUnfinishedWorkSecondsMetric(string) clientgoworkqueue.SettableGaugeMetric {
	return noopMetric{}
}
func (noopProvider) NewLongestRunningProcessorSecondsMetric(string) clientgoworkqueue.SettableGaugeMetric {
	return noopMetric{}
}
func (noopProvider) NewRetriesMetric(string) clientgoworkqueue.CounterMetric { return noopMetric{} }

// cpuTime is the CPU time (user and system) the process has used: on a
// shared machine it shows the work a queue costs, whatever the wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func makeKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("ns-%d/name-%d", i%100, i)
	}
	return keys
}

// produceAndDrain runs producers that each add their share of keys, rounds
// times over, and workers that Get and Done until the queue is drained after
// the last add. It returns when every worker has exited, and the number of
// keys handed out.
func produceAndDrain(q benchQueue, keys []string, producers, workers, rounds int) int64 {
	var (
		producing atomic.Int32
		active    atomic.Int32
		gets      atomic.Int64
		once      sync.Once
		drained   = make(chan struct{})
		wg        sync.WaitGroup
	)
	// Drained: nothing more will be added, nothing is ready, no worker holds
	// a key (a held key re-added while in flight shows up in Len after Done).
	checkDrained := func() {
		if producing.Load() == 0 && active.Load() == 0 && q.Len() == 0 {
			once.Do(func() { close(drained) })
		}
	}
	for range workers {
		wg.Go(func() {
			for {
				k, shutdown := q.Get()
				if shutdown {
					return
				}
				active.Add(1)
				gets.Add(1)
				q.Done(k)
				active.Add(-1)
				checkDrained()
			}
		})
	}
	producing.Store(int32(producers))
	var pwg sync.WaitGroup
	for p := range producers {
		pwg.Go(func() {
			for range rounds {
				for i := p; i < len(keys); i += producers {
					q.Add(keys[i])
				}
			}
			producing.Add(-1)
			checkDrained()
		})
	}
	pwg.Wait()
	<-drained
	q.ShutDown()
	wg.Wait()
	return gets.Load()
}

// BenchmarkWorkqueueThroughput: wall time from the first Add until the queue
// is drained and its workers have exited, per scenario.
func BenchmarkWorkqueueThroughput(b *testing.B) {
	cases := []struct {
		name                        string
		keys, producers, workers, r int
	}{
		{"a_1producer_1worker_10k_keys_x20", 10_000, 1, 1, 20},
		{"b_4producers_8workers_10k_keys_x20", 10_000, 4, 8, 20},
		{"c_4producers_8workers_200k_distinct", 200_000, 4, 8, 1},
	}
	for _, c := range cases {
		keys := makeKeys(c.keys)
		for _, im := range impls {
			b.Run(fmt.Sprintf("case=%s/impl=%s", c.name, im.name), func(b *testing.B) {
				// Each queue starts from a heap returned to the OS, not
				// with the pages the previous one (often controller-
				// runtime's, the largest) faulted in.
				debug.FreeOSMemory()
				b.ReportAllocs()
				var gets int64
				cpu0 := cpuTime()
				for b.Loop() {
					gets += produceAndDrain(im.make(false), keys, c.producers, c.workers, c.r)
				}
				b.ReportMetric(float64(gets)/float64(b.N), "gets/op")
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// BenchmarkWorkqueueAddGetDone: one goroutine cycling Add, Get, Done;
// one op is 10,000 cycles over 1,024 keys (reported per cycle too).
func BenchmarkWorkqueueAddGetDone(b *testing.B) {
	const cycles = 10_000
	keys := makeKeys(1024)
	for _, im := range impls {
		b.Run("case=d_add_get_done/impl="+im.name, func(b *testing.B) {
			q := im.make(false)
			defer q.ShutDown()
			b.ReportAllocs()
			for b.Loop() {
				for i := range cycles {
					q.Add(keys[i&1023])
					k, _ := q.Get()
					q.Done(k)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/cycles, "ns/cycle")
		})
	}
}

// BenchmarkWorkqueueAddAfterMemory: heap retained per delayed key, with
// 100,000 keys waiting an hour.
func BenchmarkWorkqueueAddAfterMemory(b *testing.B) {
	const n = 100_000
	keys := makeKeys(n)
	for _, im := range impls {
		b.Run("case=e_addafter_100k/impl="+im.name, func(b *testing.B) {
			var total float64
			for b.Loop() {
				b.StopTimer()
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				b.StartTimer()
				q := im.make(false)
				for _, k := range keys {
					q.AddAfter(k, time.Hour)
				}
				q.Len() // controller-runtime: flush its add buffer
				b.StopTimer()
				time.Sleep(20 * time.Millisecond) // client-go: let its waiting loop take the channel's backlog
				runtime.GC()
				runtime.ReadMemStats(&after)
				total += float64(after.HeapAlloc) - float64(before.HeapAlloc)
				runtime.KeepAlive(q)
				q.ShutDown()
				b.StartTimer()
			}
			b.ReportMetric(total/float64(b.N)/n, "B/item")
		})
	}
}

// BenchmarkWorkqueueFairness: how many keys are served ahead of one fresh
// normal-priority key queued behind 2,000 others — low-priority keys
// (priority), or normal keys of one busy namespace (lanes).
func BenchmarkWorkqueueFairness(b *testing.B) {
	const backlog = 2000
	lowKeys := makeKeys(backlog)
	busyKeys := make([]string, backlog)
	for i := range busyKeys {
		busyKeys[i] = fmt.Sprintf("busy/name-%d", i)
	}
	cases := []struct {
		name string
		fill func(benchQueue)
	}{
		{"f_behind_2000_low_priority", func(q benchQueue) {
			for _, k := range lowKeys {
				q.AddLow(k)
			}
		}},
		{"f_behind_2000_of_one_namespace", func(q benchQueue) {
			for _, k := range busyKeys {
				q.Add(k)
			}
		}},
	}
	for _, c := range cases {
		for _, im := range impls {
			b.Run(fmt.Sprintf("case=%s/impl=%s", c.name, im.name), func(b *testing.B) {
				ahead := 0
				for b.Loop() {
					q := im.make(true)
					c.fill(q)
					q.Add("quiet/fresh")
					for q.Len() < backlog+1 { // controller-runtime adds asynchronously
						runtime.Gosched()
					}
					for {
						k, _ := q.Get()
						q.Done(k)
						if k == "quiet/fresh" {
							break
						}
						ahead++
					}
					q.ShutDown()
				}
				b.ReportMetric(float64(ahead)/float64(b.N), "ahead/op")
			})
		}
	}
}
