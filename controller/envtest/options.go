package envtest

import (
	"context"
	"io"
	"time"

	"github.com/ctrlkit/ctrlkit/controller/envtest/binaries"
)

// Mode chooses the components an Environment runs.
type Mode int

const (
	// APIServerOnly runs etcd and kube-apiserver, like controller-runtime's
	// envtest: objects are stored and watched, but nothing acts on them (no
	// scheduler, no controllers, no nodes). It is the zero value, the
	// quickest to build and to start.
	APIServerOnly Mode = iota

	// Full also runs kube-scheduler, kube-controller-manager with the
	// controllers of Options.Controllers, and kwok, which fakes nodes and
	// the kubelet's pod status updates: pods are scheduled, become Running
	// and Ready, and a Deployment's rollout completes.
	Full
)

func (m Mode) String() string {
	switch m {
	case APIServerOnly:
		return "APIServerOnly"
	case Full:
		return "Full"
	}
	return "Mode(?)"
}

// DefaultControllers are the kube-controller-manager controllers a Full
// environment runs when Options.Controllers is nil: enough for Deployments,
// ReplicaSets and owner-reference garbage collection to work as in a cluster.
var DefaultControllers = []string{"deployment", "replicaset", "garbagecollector"}

// Options configure an Environment. The zero value starts an API server
// only, installs nothing, and discards progress.
type Options struct {
	// Mode chooses the components: APIServerOnly (the zero value) or Full.
	Mode Mode

	// CRDPaths are YAML files, or directories of them (not recursive; files
	// ending in .yaml, .yml or .json), holding CustomResourceDefinitions.
	// Start installs them and waits until each is Established. Documents of
	// other kinds are an error.
	CRDPaths []string

	// APIServerFlags are extra kube-apiserver flags, such as
	// "--runtime-config=api/all=true", appended after the environment's own,
	// so they win where a flag is given twice.
	APIServerFlags []string

	// FeatureGates are kube-apiserver feature gates to set, passed as
	// --feature-gates=Name=true,...; in Full mode kube-controller-manager
	// and kube-scheduler get them too, so a gated field behaves the same
	// everywhere.
	FeatureGates map[string]bool

	// Controllers is kube-controller-manager's --controllers list in Full
	// mode, in kcm's syntax ("*" for kcm's defaults, "-name" to drop one).
	// Nil means DefaultControllers. "nodelifecycle" is always added: without
	// it kwok's nodes keep the not-ready taint and no pod is scheduled. Leave
	// out "deployment" when the code under test is a Deployment controller.
	Controllers []string

	// Nodes is the number of kwok nodes in Full mode. Zero means 1.
	Nodes int

	// PodReadyDelay is how long a scheduled pod waits before kwok marks it
	// Running and Ready (Full mode); zero means at once. PodReadyJitter adds
	// a random extra wait of up to that much, so pods do not all turn Ready
	// together. A pod labelled StuckLabel never becomes Ready.
	PodReadyDelay  time.Duration
	PodReadyJitter time.Duration

	// UnpullableImages lists container images that no registry serves
	// (Full mode): a pod with a container running one of them is scheduled
	// but stays Pending and never becomes Ready, as a kubelet that fails to
	// pull it would leave it. Kubernetes' e2e specs use such an image
	// ("webserver:404") to stall a rollout; kwok, which pulls nothing,
	// would otherwise make the pod Ready.
	UnpullableImages []string

	// KCMQPS is kube-controller-manager's client rate limit (its burst is
	// twice that). Zero means 200; kcm's own default of 20 makes every
	// rollout slow.
	KCMQPS float32

	// Log receives progress: the build, when there is one, and the start.
	// Components log to files in Dir. Nil discards progress (StartForTest
	// and RunMain send it to the test log or stderr).
	Log io.Writer

	// Dir holds the instance's files (etcd data, certificates, kubeconfig,
	// one log per component). Empty means a new temporary directory that
	// Stop removes; a given Dir is kept.
	Dir string

	// Binaries are the programs to run. Nil means binaries.Ensure with the
	// programs Mode (and Kubectl) need, BinaryAssetsDirectory and Log: a
	// directory of ready-made binaries, the binary cache, official release
	// downloads or, last, a build (see package binaries).
	Binaries *binaries.Set

	// BinaryAssetsDirectory is a directory of ready-made binaries, as
	// controller-runtime's setup-envtest installs them (see
	// binaries.Options.BinaryAssetsDirectory). Empty means
	// $KUBEBUILDER_ASSETS. Not used when Binaries is set.
	BinaryAssetsDirectory string

	// Kubectl asks for kubectl too (for Environment.Kubectl); it is not
	// needed to run the control plane, so it is otherwise neither looked
	// for nor built. Not used when Binaries is set.
	Kubectl bool

	// StartTimeout bounds the start once the binaries exist, CRDs included.
	// Zero means 2 minutes.
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

// ensureBinaries returns Binaries, or asks package binaries for the
// programs the options need.
func (o Options) ensureBinaries(ctx context.Context) (*binaries.Set, error) {
	if o.Binaries != nil {
		return o.Binaries, nil
	}
	return binaries.Ensure(ctx, binaries.Options{
		Full:                  o.Mode == Full,
		Kubectl:               o.Kubectl,
		BinaryAssetsDirectory: o.BinaryAssetsDirectory,
		Log:                   o.Log,
	})
}

func (o Options) log() io.Writer {
	if o.Log == nil {
		return io.Discard
	}
	return o.Log
}
