// Package cpbuild is a build-only module: its go.mod pins, in one place, the
// versions of the programs that make up the local control plane used by
// ctrlkit's envtest package, and lists them as tool dependencies so
// that `go build <package>` works from this directory:
//
//   - k8s.io/kubernetes: kube-apiserver, kube-controller-manager,
//     kube-scheduler and kubectl. Importing k8s.io/kubernetes needs a
//     replace line for every k8s.io staging module, mapping it to the
//     matching v0.x release, as below in go.mod.
//   - go.etcd.io/etcd/server/v3: etcd, at the version k8s.io/kubernetes
//     itself requires (a lower one cannot be selected in the same module).
//   - sigs.k8s.io/kwok: kwok, which fakes nodes and pod status; its stage
//     files ship in the module.
//
// Package controller/envtest/binaries embeds a copy of this go.mod and go.sum (a
// user's module gets ctrlkit from the module cache, where nested modules
// such as this one are left out), builds these programs from it on first
// use, and caches them under the user's cache directory keyed by a hash of
// the two files; controller/envtest runs them. To bump a version: edit
// go.mod, run `go mod tidy` here, then `go generate
// ./controller/envtest/binaries` from the repository
// root to refresh the embedded copy (a test fails until you do); the next
// run rebuilds.
package cpbuild
