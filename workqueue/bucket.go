package workqueue

import (
	"time"

	"golang.org/x/time/rate"
	"k8s.io/utils/clock"
)

// TypedBucketRateLimiter spaces all rate-limited adds by a token bucket,
// whatever their key, but never delays one by more than MaxDelay.
//
// client-go's bucket reserves a token for every add, however far in the
// future: 10,000 failures at 10 qps make the last retry wait 16 minutes, and
// every later add queues behind them (kubernetes#104554). Here a reservation
// that would wait longer than MaxDelay is cancelled, so it takes no token and
// does not push later adds back, and the add waits MaxDelay. The bucket thus
// never books more than about rate×MaxDelay adds ahead, and the adds past
// that are released together after MaxDelay.
//
// Set the fields before first use.
type TypedBucketRateLimiter[T comparable] struct {
	// Limiter is the bucket.
	Limiter *rate.Limiter
	// MaxDelay caps every delay; zero or negative means no cap (client-go's
	// behaviour).
	MaxDelay time.Duration
	// Clock reads the time for reservations; nil means the real clock.
	Clock clock.PassiveClock
}

// NewTypedBucketRateLimiter returns a bucket limiter whose delays never
// exceed maxDelay.
func NewTypedBucketRateLimiter[T comparable](limiter *rate.Limiter, maxDelay time.Duration) *TypedBucketRateLimiter[T] {
	return &TypedBucketRateLimiter[T]{Limiter: limiter, MaxDelay: maxDelay}
}

// When reserves a token and returns how long to wait for it, at most
// MaxDelay.
func (r *TypedBucketRateLimiter[T]) When(T) time.Duration {
	now := time.Now()
	if r.Clock != nil {
		now = r.Clock.Now()
	}
	res := r.Limiter.ReserveN(now, 1)
	if !res.OK() {
		// Burst zero (or a limit that can never grant a token): wait the
		// cap rather than forever.
		return max(r.MaxDelay, 0)
	}
	d := res.DelayFrom(now)
	if r.MaxDelay > 0 && d > r.MaxDelay {
		res.CancelAt(now)
		return r.MaxDelay
	}
	return d
}

// NumRequeues is always zero: the bucket does not track keys.
func (r *TypedBucketRateLimiter[T]) NumRequeues(T) int { return 0 }

// Forget does nothing: the bucket does not track keys.
func (r *TypedBucketRateLimiter[T]) Forget(T) {}
