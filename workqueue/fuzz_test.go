package workqueue

import (
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// FuzzQueue runs random operations from several goroutines and checks the
// queue's promises: a key is never in two workers at once, no add is lost
// (every key is handed out after its last add that the queue accepted), and
// a single add is not processed twice.
//
// Encoding: byte 0 picks the number of goroutines (1-4, low bits) and
// whether keys have lanes (bit 2); then each operation is three bytes
// (kind, key, argument), dealt round-robin to the goroutines. The argument
// is a delay in milliseconds, a priority, or for the ShutDown kind whether
// to really shut down (arg >= 224) or only call Len.
func FuzzQueue(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 3, 1, 0, 4, 1, 0})
	f.Add([]byte{0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 4, 0, 0, 3, 0, 0, 4, 0, 0}) // re-add in flight
	f.Add([]byte{0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 3, 0, 0, 4, 0, 0, 4, 0, 0}) // one worker holding two
	f.Add([]byte{1, 0, 1, 0, 3, 1, 0, 0, 1, 0, 4, 1, 0, 3, 2, 0, 4, 2, 0})
	f.Add([]byte{3, 1, 2, 50, 0, 3, 0, 3, 0, 0, 2, 2, 10, 3, 1, 0, 4, 0, 0, 3, 0, 0, 1, 2, 10, 4, 0, 0})
	f.Add([]byte{2, 3, 5, 0, 3, 5, 0, 3, 5, 0, 3, 0, 0, 3, 0, 0, 4, 0, 0, 4, 0, 0, 5, 5, 0, 0, 5, 0})
	f.Add([]byte{3, 4, 1, 200, 4, 2, 10, 0, 1, 0, 3, 0, 0, 7, 0, 255, 0, 2, 0, 3, 0, 0, 4, 0, 0, 6, 0, 0, 3, 0, 0})
	f.Add([]byte{1, 0, 7, 0, 1, 7, 5, 2, 7, 9, 3, 0, 0, 0, 7, 0, 3, 0, 0, 4, 0, 0, 4, 0, 0})
	f.Add([]byte{8, 0, 1, 0, 3, 1, 0, 4, 1, 0})
	f.Add([]byte{8, 0, 0, 0, 3, 0, 0, 0, 0, 0, 4, 0, 0, 3, 0, 0, 4, 0, 0})
	f.Add([]byte{11, 1, 2, 50, 0, 3, 0, 3, 0, 0, 2, 2, 10, 3, 1, 0, 4, 0, 0, 3, 0, 0, 1, 2, 10, 4, 0, 0})
	f.Add([]byte{10, 3, 5, 0, 3, 5, 0, 3, 5, 0, 3, 0, 0, 3, 0, 0, 4, 0, 0, 4, 0, 0, 5, 5, 0, 0, 5, 0})
	f.Add([]byte{15, 4, 1, 200, 4, 2, 10, 0, 1, 0, 3, 0, 0, 7, 0, 255, 0, 2, 0, 3, 0, 0, 4, 0, 0, 6, 0, 0, 3, 0, 0})
	f.Add([]byte{11, 0, 1, 0, 0, 2, 0, 0, 3, 0, 3, 0, 0, 0, 1, 0, 0, 2, 0, 3, 0, 0, 4, 0, 0, 4, 0, 0, 3, 0, 0})
	f.Add([]byte{1, 0, 1, 0, 0, 2, 0, 3, 0, 0, 3, 0, 0, 3, 0, 200, 3, 0, 200, 0, 1, 0, 3, 0, 200, 3, 0, 200})
	f.Add([]byte{9, 0, 1, 0, 0, 1, 0, 3, 0, 0, 3, 0, 0, 0, 1, 0, 3, 1, 130, 3, 0, 130, 4, 0, 0, 3, 0, 255})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 3*300 {
			data = data[:3*300] // keep each run short
		}
		synctest.Test(t, func(t *testing.T) { runFuzzOps(t, data) })
	})
}

const (
	opAdd = iota
	opAddAfter
	opAddRateLimited
	opGet
	opDone
	opAddWithPriority
	opForget
	opShutDown
	opKinds

	fuzzKeys     = 8
	maxFuzzDelay = 256 * time.Millisecond // biggest delay an op can ask for
)

type fuzzOp struct{ kind, key, arg byte }

// fuzzChecker records what the workers saw, in one order (its mutex).
type fuzzChecker struct {
	t  *testing.T
	q  *Queue[string]
	mu sync.Mutex

	seq        int
	inFlight   map[string]bool
	adding     map[string]int // adds in progress
	lastAddEnd map[string]int // when the latest add of the key returned
	prevGet    map[string]int // when the Get that last handed the key out started
	lastAdd    map[string]fuzzAdd
	lastGetEnd map[string]int
	shutdownAt time.Time // zero until ShutDown starts
	failures   []string
}

// fuzzAdd is an accepted add: when it started and when it was due at the
// latest.
type fuzzAdd struct {
	start  int
	maxDue time.Time
}

func (c *fuzzChecker) fail(format string, args ...any) {
	c.failures = append(c.failures, fmt.Sprintf(format, args...))
}

func (c *fuzzChecker) add(key string, maxDelay time.Duration, do func()) {
	c.mu.Lock()
	c.seq++
	a := fuzzAdd{start: c.seq, maxDue: time.Now().Add(maxDelay)}
	shut := !c.shutdownAt.IsZero()
	c.adding[key]++
	c.mu.Unlock()
	do()
	c.mu.Lock()
	c.seq++
	c.lastAddEnd[key] = c.seq
	c.adding[key]--
	if !shut && c.shutdownAt.IsZero() { // surely accepted
		c.lastAdd[key] = a
	}
	c.mu.Unlock()
}

// getting returns the step at which a Get call starts.
func (c *fuzzChecker) getting() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	return c.seq
}

// handedOut records that a Get that started at step getStart returned key.
func (c *fuzzChecker) handedOut(key string, getStart int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	if c.inFlight[key] {
		c.fail("key %s handed to a second worker", key)
	}
	c.inFlight[key] = true
	// The queue handed key out somewhere between getStart and now. Only an
	// add that may have landed after the previous hand-out (it returned
	// after the previous Get started, or is still running) justifies this
	// one; unknown keys (no previous hand-out) need any add at all.
	if c.adding[key] == 0 && c.lastAddEnd[key] <= c.prevGet[key] {
		c.fail("key %s handed out again with no add since its last hand-out", key)
	}
	c.prevGet[key] = getStart
	c.lastGetEnd[key] = c.seq
}

func (c *fuzzChecker) done(key string) {
	c.mu.Lock()
	delete(c.inFlight, key)
	c.mu.Unlock()
	c.q.Done(key)
}

// worker runs one goroutine's operations, holding the keys it gets until a
// Done operation (or its end) releases them.
func (c *fuzzChecker) worker(ops []fuzzOp) {
	var held []string
	for _, op := range ops {
		key := fmt.Sprintf("k%d", op.key%fuzzKeys)
		switch op.kind % opKinds {
		case opAdd:
			c.add(key, 0, func() { c.q.Add(key) })
		case opAddAfter:
			d := time.Duration(op.arg) * time.Millisecond
			c.add(key, d, func() { c.q.AddAfter(key, d) })
		case opAddRateLimited:
			c.add(key, fuzzSlowDelay, func() { c.q.AddRateLimited(key) })
		case opAddWithPriority:
			o := AddOpts{Priority: int(op.arg%5) - 2}
			if op.arg >= 128 {
				o.After = time.Duration(op.arg-128) * time.Millisecond
			}
			c.add(key, o.After, func() { c.q.AddWithOpts(o, key) })
		case opGet:
			if len(held) >= 2 {
				c.done(held[0])
				held = held[1:]
			}
			start := c.getting()
			k, shutdown := c.q.Get()
			if shutdown {
				continue
			}
			c.handedOut(k, start)
			held = append(held, k)
		case opDone:
			if len(held) > 0 {
				c.done(held[0])
				held = held[1:]
			}
		case opForget:
			c.q.Forget(key)
		case opShutDown:
			if op.arg < 224 {
				// Mostly just look: an early ShutDown ends the
				// interesting part of a run.
				c.q.Len()
				continue
			}
			c.mu.Lock()
			if c.shutdownAt.IsZero() {
				c.shutdownAt = time.Now()
			}
			c.mu.Unlock()
			c.q.ShutDown()
		}
	}
	for _, k := range held {
		c.done(k)
	}
}

const fuzzSlowDelay = 10 * time.Millisecond

func runFuzzOps(t *testing.T, data []byte) {
	opts := Options[string]{
		RateLimiter: NewTypedItemFastSlowRateLimiter[string](time.Millisecond, fuzzSlowDelay, 2),
	}
	if len(data) > 0 && data[0]&4 != 0 {
		opts.Lane = func(k string) string { return k[len(k)-1:] }
	}
	q := New(opts)
	c := &fuzzChecker{
		t: t, q: q,
		inFlight: map[string]bool{}, adding: map[string]int{}, lastAddEnd: map[string]int{}, prevGet: map[string]int{},
		lastAdd: map[string]fuzzAdd{}, lastGetEnd: map[string]int{},
	}
	workers := 1
	if len(data) > 0 {
		workers = int(data[0])%4 + 1
		data = data[1:]
	}
	scripts := make([][]fuzzOp, workers)
	for i := 0; i+3 <= len(data); i += 3 {
		w := (i / 3) % workers
		scripts[w] = append(scripts[w], fuzzOp{data[i], data[i+1], data[i+2]})
	}

	var running sync.WaitGroup
	finished := make(chan struct{})
	for _, ops := range scripts {
		running.Go(func() { c.worker(ops) })
	}
	go func() {
		running.Wait()
		close(finished)
	}()

	// Workers blocked in Get need keys to finish their scripts: let delays
	// run out first, then feed them sentinel keys.
	for sentinel := 0; ; sentinel++ {
		synctest.Wait()
		select {
		case <-finished:
		default:
			time.Sleep(maxFuzzDelay + fuzzSlowDelay)
			synctest.Wait()
			select {
			case <-finished:
			default:
				if q.ShuttingDown() {
					t.Fatal("workers blocked after ShutDown")
				}
				if n := q.Len(); n > 0 {
					q.ShutDown() // release the workers, then fail
					<-finished
					t.Fatalf("workers blocked in Get while %d keys are ready: a lost wake-up", n)
				}
				k := fmt.Sprintf("sentinel%d", sentinel)
				c.add(k, 0, func() { q.Add(k) })
				continue
			}
		}
		break
	}

	// Drain what is left, delays included.
	for {
		for q.Len() > 0 {
			start := c.getting()
			k, shutdown := q.Get()
			if shutdown {
				break
			}
			c.handedOut(k, start)
			c.done(k)
		}
		q.mu.Lock()
		idle := q.waiting.Len() == 0 || q.shuttingDown
		q.mu.Unlock()
		if idle {
			break
		}
		time.Sleep(maxFuzzDelay + fuzzSlowDelay)
		synctest.Wait()
	}
	if err := q.checkInvariants(); err != nil {
		t.Error(err)
	}
	q.ShutDown()

	c.mu.Lock()
	defer c.mu.Unlock()
	for key, a := range c.lastAdd {
		if !c.shutdownAt.IsZero() && !a.maxDue.Before(c.shutdownAt) {
			continue // possibly still delayed at ShutDown, which discards it
		}
		if c.lastGetEnd[key] < a.start {
			c.fail("key %s lost: added at step %d, last handed out at step %d", key, a.start, c.lastGetEnd[key])
		}
	}
	for _, f := range c.failures {
		t.Error(f)
	}
}
