package prommetrics

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"go.uber.org/goleak"

	"github.com/ctrlkit/ctrlkit/workqueue"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestNewRegistersTheKnownNames(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	p, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	q := workqueue.New(workqueue.Options[string]{Name: "deployment", MetricsProvider: p})
	defer q.ShutDown()
	q.Add("a")
	q.AddAfter("b", time.Hour)
	k, _ := q.Get()
	q.Done(k)

	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range families {
		names = append(names, f.GetName())
		want := map[string]string{"name": "deployment", "controller": "deployment"}
		if f.GetName() == "workqueue_depth" {
			want["priority"] = ""
		}
		for _, m := range f.GetMetric() {
			got := map[string]string{}
			for _, l := range m.GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
			if !maps.Equal(got, want) {
				t.Errorf("%s labels = %v, want %v", f.GetName(), got, want)
			}
		}
	}
	want := []string{
		"workqueue_adds_total", "workqueue_depth", "workqueue_dropped_total",
		"workqueue_longest_running_processor_seconds",
		"workqueue_queue_duration_seconds", "workqueue_retries_total",
		"workqueue_unfinished_work_seconds", "workqueue_work_duration_seconds",
	}
	if !slices.Equal(names, want) {
		t.Fatalf("gathered %v, want %v", names, want)
	}
	if got := value(t, p.adds.WithLabelValues("deployment", "deployment")); got != 1 {
		t.Errorf("adds = %v, want 1", got)
	}
	if got := value(t, p.retries.WithLabelValues("deployment", "deployment")); got != 1 {
		t.Errorf("retries = %v, want 1", got)
	}
}

// TestBucketsAreControllerRuntimes: 10ns to 1000s, as controller-runtime's
// (component-base's, two decades further).
func TestBucketsAreControllerRuntimes(t *testing.T) {
	reg := prometheus.NewRegistry()
	p, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	p.NewLatencyMetric("q").Observe(0.5)
	families, _ := reg.Gather()
	for _, f := range families {
		if f.GetName() != "workqueue_queue_duration_seconds" {
			continue
		}
		var bounds []float64
		for _, b := range f.GetMetric()[0].GetHistogram().GetBucket() {
			bounds = append(bounds, b.GetUpperBound())
		}
		want := []float64{1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1000}
		if len(bounds) != len(want) {
			t.Fatalf("buckets = %v, want %v", bounds, want)
		}
		for i := range want {
			if bounds[i] < want[i]*0.999 || bounds[i] > want[i]*1.001 {
				t.Fatalf("buckets = %v, want %v", bounds, want)
			}
		}
		return
	}
	t.Fatal("no workqueue_queue_duration_seconds family")
}

func TestNewTwiceOnOneRegistryShares(t *testing.T) {
	reg := prometheus.NewRegistry()
	p1, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := New(reg)
	if err != nil {
		t.Fatalf("second New on the same registry: %v", err)
	}
	p1.NewAddsMetric("one").Inc()
	p2.NewAddsMetric("two").Inc()
	p2.NewAddsMetric("one").Inc()
	if got := value(t, p1.adds.WithLabelValues("one", "one")); got != 2 {
		t.Fatalf("adds{name=one} = %v, want 2: both providers feed one series", got)
	}
	if n := count(p1.adds); n != 2 {
		t.Fatalf("series = %d, want 2", n)
	}
}

// TestNewReusesAnEqualCollectorRegisteredBefore: a collector with the same
// descriptors, registered by someone else (controller-runtime registers
// its own on its registry), is fed rather than refused.
func TestNewReusesAnEqualCollectorRegisteredBefore(t *testing.T) {
	reg := prometheus.NewRegistry()
	theirs := prometheus.NewCounterVec(prometheus.CounterOpts{
		Subsystem: Subsystem, Name: AddsKey, Help: "Total number of adds handled by workqueue",
	}, []string{"name", "controller"})
	reg.MustRegister(theirs)
	p, err := New(reg)
	if err != nil {
		t.Fatalf("New over an equal collector: %v", err)
	}
	p.NewAddsMetric("q").Inc()
	if got := value(t, theirs.WithLabelValues("q", "q")); got != 1 {
		t.Fatalf("the collector registered before counts %v adds, want 1", got)
	}
}

func TestSeparateRegistriesDoNotShare(t *testing.T) {
	p1, err := New(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	p2, err := New(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	p1.NewAddsMetric("q").Inc()
	if got := value(t, p2.adds.WithLabelValues("q", "q")); got != 0 {
		t.Fatalf("second registry's adds = %v, want 0", got)
	}
}

func TestNewReportsConflicts(t *testing.T) {
	if _, err := New(nil); err == nil {
		t.Fatal("New(nil) succeeded")
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(prometheus.NewCounter(prometheus.CounterOpts{Name: "workqueue_depth", Help: "not ours"}))
	_, err := New(reg)
	if err == nil || !strings.Contains(err.Error(), "prommetrics") {
		t.Fatalf("New with a conflicting collector: err = %v, want a prommetrics error", err)
	}
}

func TestDroppedKeysAreCounted(t *testing.T) {
	reg := prometheus.NewRegistry()
	p, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	q := workqueue.New(workqueue.Options[string]{
		Name: "q", MetricsProvider: p, MaxRetries: 1,
		RateLimiter: workqueue.NewTypedItemFastSlowRateLimiter[string](0, 0, 0),
	})
	defer q.ShutDown()
	q.AddRateLimited("k")
	q.AddRateLimited("k")
	if got := value(t, p.dropped.WithLabelValues("q", "q")); got != 1 {
		t.Fatalf("dropped = %v, want 1", got)
	}
}

// value reads a counter's or gauge's current value.
func value(t *testing.T, m prometheus.Metric) float64 {
	t.Helper()
	var out dto.Metric
	if err := m.Write(&out); err != nil {
		t.Fatal(err)
	}
	if c := out.GetCounter(); c != nil {
		return c.GetValue()
	}
	return out.GetGauge().GetValue()
}

// count returns how many series c has.
func count(c prometheus.Collector) int {
	ch := make(chan prometheus.Metric)
	go func() {
		c.Collect(ch)
		close(ch)
	}()
	n := 0
	for range ch {
		n++
	}
	return n
}
