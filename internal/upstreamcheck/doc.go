// Package upstreamcheck holds tests that compare ctrlkit's re-implementations
// with the kube-controller-manager code they must agree with, byte for byte.
//
// It is a separate module so that k8s.io/kubernetes (and its many
// dependencies) never enter the dependency graph of ctrlkit itself. Run it
// with:
//
//	cd internal/upstreamcheck && go test ./...
//
// TestRandomWorldsMatchUpstream compares the two Deployment controllers on
// random worlds: 1000 by default, more with -worlds N (and other seeds with
// -seed S; world i is drawn from S+i, so -seed S -worlds 1 replays one):
//
//	go test -run TestRandomWorldsMatchUpstream -worlds 20000 .
//
// `make upstream-long` runs that.
//
// The comparisons exclude one input class, where ctrlkit differs on purpose:
// a Deployment whose selector does not select its own new ReplicaSet (it
// names pod-template-hash); see unadoptableNewReplicaSet.
package upstreamcheck
