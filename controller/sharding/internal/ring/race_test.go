//go:build race

package ring_test

// raceEnabled shortens the randomized tests: the race detector slows the
// fake API server down tenfold.
const raceEnabled = true
