//go:build race

package sharding_test

// raceEnabled shortens the randomized tests: the race detector slows the
// fake API server down tenfold.
const raceEnabled = true
