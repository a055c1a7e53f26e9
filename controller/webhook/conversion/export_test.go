package conversion

// The tests of the body's bound send bodies just over it: 1 MiB, not
// 128, keeps them quick.
func init() { maxReviewBytes = 1 << 20 }
