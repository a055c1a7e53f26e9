package controlplane

import (
	"io"
	"time"
)

// Options configure a control plane. The zero value is a useful default: one
// node, pods Ready at once, our own Deployment controller expected (kcm runs
// without one), progress discarded.
type Options struct {
	// Nodes is the number of kwok nodes. Zero means 1.
	Nodes int

	// UpstreamDeploymentController also runs kube-controller-manager's own
	// Deployment controller, as a reference. Leave it off when the code under
	// test is a Deployment controller.
	UpstreamDeploymentController bool

	// PodReadyDelay is how long a scheduled pod waits before kwok marks it
	// Running and Ready; zero means at once. PodReadyJitter adds a random
	// extra wait of up to that much, so pods do not all turn Ready together.
	PodReadyDelay  time.Duration
	PodReadyJitter time.Duration

	// KCMQPS is kube-controller-manager's client rate limit (its burst is
	// twice that). Zero means 200; kcm's own default of 20 makes every
	// rollout slow.
	KCMQPS float32

	// Log receives progress: the build, when there is one, and the start.
	// Components log to files in Dir. Nil discards progress.
	Log io.Writer

	// Dir holds the instance's files (etcd data, certificates, kubeconfig,
	// one log per component). Empty means a new temporary directory that Stop
	// removes; a given Dir is kept.
	Dir string

	// Binaries are the programs to run. Nil means EnsureBinaries, which
	// builds them on first use.
	Binaries *Binaries

	// APIServerFlags are extra kube-apiserver flags, after the built-in
	// ones, for example "--feature-gates=ShardedListAndWatch=true".
	APIServerFlags []string

	// StartTimeout bounds the start once the binaries exist. Zero means 2
	// minutes.
	StartTimeout time.Duration
}

func (o Options) nodes() int {
	if o.Nodes <= 0 {
		return 1
	}
	return o.Nodes
}

func (o Options) kcmQPS() float32 {
	if o.KCMQPS <= 0 {
		return 200
	}
	return o.KCMQPS
}

func (o Options) startTimeout() time.Duration {
	if o.StartTimeout <= 0 {
		return 2 * time.Minute
	}
	return o.StartTimeout
}

func (o Options) log() io.Writer {
	if o.Log == nil {
		return io.Discard
	}
	return o.Log
}
