package workqueue

import (
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

// newTestQueue returns a queue on a fake clock, shut down when the test ends.
func newTestQueue(t *testing.T, opts Options[string]) (*Queue[string], *clocktesting.FakeClock) {
	t.Helper()
	clk := clocktesting.NewFakeClock(time.Unix(1_000_000, 0))
	if opts.Clock == nil {
		opts.Clock = clk
	}
	q := New(opts)
	t.Cleanup(q.ShutDown)
	return q, clk
}

// mustGet hands out the next key, failing the test on shutdown.
func mustGet(t *testing.T, q *Queue[string]) string {
	t.Helper()
	k, shutdown := q.Get()
	if shutdown {
		t.Fatalf("Get reported shutdown")
	}
	return k
}

// getAll hands out n keys (and marks them done), returning them in order.
func getAll(t *testing.T, q *Queue[string], n int) []string {
	t.Helper()
	var out []string
	for range n {
		k := mustGet(t, q)
		out = append(out, k)
		q.Done(k)
	}
	return out
}

// startDrain calls ShutDownWithDrain on a goroutine of its own and returns
// a channel closed when it has returned.
func startDrain(q *Queue[string]) <-chan struct{} {
	drained := make(chan struct{})
	go func() {
		q.ShutDownWithDrain()
		close(drained)
	}()
	return drained
}

// isClosed reports whether ch is closed, without waiting.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
