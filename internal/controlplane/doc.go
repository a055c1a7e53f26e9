// Package controlplane builds, caches, starts and stops a local Kubernetes
// control plane for tests and demos: etcd, kube-apiserver, kube-scheduler,
// kube-controller-manager and kwok, which fakes nodes and the kubelet's pod
// status updates so that pods get scheduled, run and become Ready without a
// container runtime.
//
// The binaries are built with the go command from the nested module in
// internal/cpbuild, whose go.mod pins every version in one place. They are
// cached under os.UserCacheDir()/ctrlkit/bin/<key>, where key is a hash of that
// go.mod and go.sum, so a version bump rebuilds and nothing else does. The
// first build takes minutes and prints its progress; later starts take
// seconds. A file lock keeps concurrent test binaries from building twice.
//
// Each ControlPlane runs in its own directory on free loopback ports, so
// several can run at once (one per test package). Stop ends every process and
// waits until they are all gone; on Linux the processes also die with the
// process that started them, so an interrupted test leaves no orphans.
//
// Pods run on kwok nodes. A pod whose labels include StuckLabel never becomes
// Ready, which lets tests exercise stuck rollouts and progress deadlines;
// Options.PodReadyDelay makes the other pods take time to become Ready, so a
// rollout proceeds in observable steps.
package controlplane
