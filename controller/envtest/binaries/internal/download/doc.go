// Package download fetches the official release binaries of the control
// plane, as controller-runtime's setup-envtest does: the envtest tarball
// (etcd, kube-apiserver, kubectl) named by controller-tools' release index,
// kube-scheduler and kube-controller-manager from the Kubernetes release,
// and kwok with its stages from its GitHub release. Every file's published
// digest is checked before it gets its final name, so nothing unverified is
// ever run or kept.
package download
