package workqueue

import (
	"time"

	"golang.org/x/time/rate"
	clientgoworkqueue "k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
)

// The per-key rate limiters are client-go's, under their client-go names, so
// that code written for client-go's queue finds them here too.
type (
	// TypedItemExponentialFailureRateLimiter delays a key baseDelay·2^n
	// after its n-th failure, capped at maxDelay. Forget resets the key.
	TypedItemExponentialFailureRateLimiter[T comparable] = clientgoworkqueue.TypedItemExponentialFailureRateLimiter[T]
	// TypedItemFastSlowRateLimiter delays a key fastDelay for its first
	// maxFastAttempts failures and slowDelay after that.
	TypedItemFastSlowRateLimiter[T comparable] = clientgoworkqueue.TypedItemFastSlowRateLimiter[T]
	// TypedMaxOfRateLimiter asks every limiter and returns the longest delay.
	TypedMaxOfRateLimiter[T comparable] = clientgoworkqueue.TypedMaxOfRateLimiter[T]
)

// NewTypedItemExponentialFailureRateLimiter returns a per-key exponential
// backoff from baseDelay up to maxDelay.
func NewTypedItemExponentialFailureRateLimiter[T comparable](baseDelay, maxDelay time.Duration) TypedRateLimiter[T] {
	return clientgoworkqueue.NewTypedItemExponentialFailureRateLimiter[T](baseDelay, maxDelay)
}

// NewTypedItemFastSlowRateLimiter returns a two-speed per-key limiter.
func NewTypedItemFastSlowRateLimiter[T comparable](fastDelay, slowDelay time.Duration, maxFastAttempts int) TypedRateLimiter[T] {
	return clientgoworkqueue.NewTypedItemFastSlowRateLimiter[T](fastDelay, slowDelay, maxFastAttempts)
}

// NewTypedMaxOfRateLimiter combines limiters; the longest delay wins. Every
// limiter sees every call, so each keeps its own count.
func NewTypedMaxOfRateLimiter[T comparable](limiters ...TypedRateLimiter[T]) TypedRateLimiter[T] {
	return clientgoworkqueue.NewTypedMaxOfRateLimiter(limiters...)
}

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
