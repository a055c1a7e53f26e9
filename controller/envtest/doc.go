// Package envtest runs a real local Kubernetes control plane for tests and
// tools: etcd and kube-apiserver, like controller-runtime's envtest, or the
// full set, with kube-scheduler, kube-controller-manager and kwok, which
// fakes nodes and the kubelet's pod status updates, so that pods are
// scheduled, run and become Ready without a container runtime.
//
//	env := envtest.StartForTest(t, envtest.Options{CRDPaths: []string{"testdata/crds"}})
//	ns := env.Namespace(t)
//	client := env.Client() // or env.RESTConfig() for the code under test
//
// # Binaries
//
// Each program comes from the first source that has it: a directory of
// ready-made binaries (Options.BinaryAssetsDirectory, else
// $KUBEBUILDER_ASSETS, as controller-runtime's setup-envtest makes it),
// each checked with --version against the pinned version; the binary cache
// under os.UserCacheDir()/ctrlkit/bin/<key> (or Options.CacheDir, or
// $CTRLKIT_ENVTEST_CACHE), where key hashes the pins; official release
// downloads, digest-verified before use (etcd, kube-apiserver and kubectl
// from the envtest release index, kube-scheduler and
// kube-controller-manager from the Kubernetes release, kwok and its stages
// from kwok's GitHub release; off under CI=true, with
// CTRLKIT_ENVTEST_DOWNLOAD=off or Options.NoDownload); and last a build with
// the go command from the Go module proxy, at versions pinned by a build
// module embedded in this package (edited in ctrlkit's internal/cpbuild).
// The build makes only what the mode needs (kubectl only with
// Options.Kubectl), in one go build so that shared packages compile once,
// and prints where the binaries come from, an estimate for the machine's
// cores (about 7 minutes for the Full set on 2 idle cores) and its progress. A
// file lock keeps concurrent test binaries from building twice.
//
// # Modes
//
// APIServerOnly (the zero Options) stores and serves objects, nothing acts on
// them. Full adds the scheduler, kube-controller-manager with the
// controllers of Options.Controllers, and kwok nodes. A pod whose labels
// include StuckLabel never becomes Ready, which lets tests exercise stuck
// rollouts and progress deadlines; Options.PodReadyDelay makes the other pods
// take time to become Ready, so a rollout proceeds in observable steps.
//
// # Lifetime
//
// Each Environment runs in its own directory on free loopback ports, so
// several can run at once (one per test package, say). Stop ends every
// process, waits until they are all gone, and removes the directory. On
// Linux the processes also die with the process that started them, so a
// test binary that is killed leaves no orphans, and the next Start removes
// its directory; StartForTest and RunMain also stop their environments on
// SIGINT and SIGTERM.
package envtest
