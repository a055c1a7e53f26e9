// Package cpbuild is a build-only module: its go.mod pins, in one place, the
// versions of the programs that make up the local control plane used by
// ctrlkit's end-to-end tests and demo, and lists them as tool dependencies so
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
// Package internal/controlplane builds these programs on first use, caches
// them under the user's cache directory keyed by a hash of this go.mod and
// go.sum, and runs them. To bump a version: edit go.mod, run `go mod tidy`
// here, and the next run rebuilds.
package cpbuild
