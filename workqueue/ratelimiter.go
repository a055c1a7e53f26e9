package workqueue

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/utils/clock"
)

// DefaultBucketMaxDelay caps the overall token bucket of
// DefaultTypedControllerRateLimiter.
const DefaultBucketMaxDelay = time.Minute

// DefaultTypedControllerRateLimiter is client-go's default controller rate
// limiter, made safe for bursts: the larger of a per-key exponential backoff
// (5ms doubling up to 1000s) and an overall 10 qps / 100 burst token bucket
// whose delay never exceeds DefaultBucketMaxDelay.
func DefaultTypedControllerRateLimiter[T comparable]() TypedRateLimiter[T] {
	return defaultControllerRateLimiter[T](clock.RealClock{})
}

func defaultControllerRateLimiter[T comparable](clk clock.PassiveClock) TypedRateLimiter[T] {
	bucket := NewTypedBucketRateLimiter[T](rate.NewLimiter(rate.Limit(10), 100), DefaultBucketMaxDelay)
	bucket.Clock = clk
	return NewTypedMaxOfRateLimiter(
		NewTypedItemExponentialFailureRateLimiter[T](5*time.Millisecond, 1000*time.Second),
		bucket,
	)
}

// TypedItemExponentialFailureRateLimiter delays a key baseDelay·2^n after its
// n-th failure, capped at maxDelay. Forget resets the key.
type TypedItemExponentialFailureRateLimiter[T comparable] struct {
	failureCounts[T]
	baseDelay time.Duration
	maxDelay  time.Duration
}

// NewTypedItemExponentialFailureRateLimiter returns a per-key exponential
// backoff from baseDelay up to maxDelay.
func NewTypedItemExponentialFailureRateLimiter[T comparable](baseDelay, maxDelay time.Duration) TypedRateLimiter[T] {
	return &TypedItemExponentialFailureRateLimiter[T]{
		baseDelay: baseDelay,
		maxDelay:  maxDelay,
	}
}

// When returns key's next delay and counts one more failure.
func (r *TypedItemExponentialFailureRateLimiter[T]) When(key T) time.Duration {
	n := r.count(key) - 1

	d := r.baseDelay
	if d <= 0 {
		return d // doubling nothing stays nothing
	}
	for ; n > 0 && d < r.maxDelay; n-- {
		if d > r.maxDelay/2 {
			return r.maxDelay // doubling would pass the cap (or overflow)
		}
		d *= 2
	}
	return min(d, r.maxDelay)
}

// failureCounts counts each key's failures for the per-key limiters, which
// get NumRequeues and Forget from it. Its zero value counts nothing yet.
type failureCounts[T comparable] struct {
	mu       sync.Mutex
	failures map[T]int
}

// count counts one more failure of key and returns the new count.
func (c *failureCounts[T]) count(key T) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failures == nil {
		c.failures = make(map[T]int)
	}
	c.failures[key]++
	return c.failures[key]
}

// NumRequeues returns key's failure count.
func (c *failureCounts[T]) NumRequeues(key T) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failures[key]
}

// Forget resets key.
func (c *failureCounts[T]) Forget(key T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.failures, key)
}

// TypedItemFastSlowRateLimiter delays a key fastDelay for its first
// maxFastAttempts failures and slowDelay after that.
type TypedItemFastSlowRateLimiter[T comparable] struct {
	failureCounts[T]
	fastDelay       time.Duration
	slowDelay       time.Duration
	maxFastAttempts int
}

// NewTypedItemFastSlowRateLimiter returns a two-speed per-key limiter.
func NewTypedItemFastSlowRateLimiter[T comparable](fastDelay, slowDelay time.Duration, maxFastAttempts int) TypedRateLimiter[T] {
	return &TypedItemFastSlowRateLimiter[T]{
		fastDelay:       fastDelay,
		slowDelay:       slowDelay,
		maxFastAttempts: maxFastAttempts,
	}
}

// When returns key's next delay and counts one more failure.
func (r *TypedItemFastSlowRateLimiter[T]) When(key T) time.Duration {
	if r.count(key) <= r.maxFastAttempts {
		return r.fastDelay
	}
	return r.slowDelay
}

// TypedMaxOfRateLimiter asks every limiter and returns the longest delay.
// Every limiter sees every call, so each keeps its own count.
type TypedMaxOfRateLimiter[T comparable] struct {
	limiters []TypedRateLimiter[T]
}

// NewTypedMaxOfRateLimiter combines limiters; the longest delay wins.
func NewTypedMaxOfRateLimiter[T comparable](limiters ...TypedRateLimiter[T]) TypedRateLimiter[T] {
	return &TypedMaxOfRateLimiter[T]{limiters: limiters}
}

// When returns the longest of the limiters' delays.
func (r *TypedMaxOfRateLimiter[T]) When(key T) time.Duration {
	var d time.Duration
	for _, l := range r.limiters {
		d = max(d, l.When(key))
	}
	return d
}

// NumRequeues returns the largest of the limiters' counts.
func (r *TypedMaxOfRateLimiter[T]) NumRequeues(key T) int {
	var n int
	for _, l := range r.limiters {
		n = max(n, l.NumRequeues(key))
	}
	return n
}

// Forget forgets key in every limiter.
func (r *TypedMaxOfRateLimiter[T]) Forget(key T) {
	for _, l := range r.limiters {
		l.Forget(key)
	}
}
