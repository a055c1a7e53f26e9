// Package binaries provides the programs of envtest's local control plane,
// as setup-envtest does for controller-runtime's envtest: etcd and
// kube-apiserver, with Options.Full kube-scheduler, kube-controller-manager
// and kwok with its stages, and with Options.Kubectl kubectl.
//
//	bins, err := binaries.Ensure(ctx, binaries.Options{Full: true, Log: os.Stderr})
//	env, err := envtest.Start(ctx, envtest.Options{Mode: envtest.Full, Binaries: bins})
//
// envtest.Start calls Ensure itself when Options.Binaries is nil; call it
// directly to get the binaries ahead (a CI step, a tool) or to set the
// options envtest does not pass on (CacheDir, downloads, mirrors).
//
// Each program comes from the first source that has it:
//
//  1. a directory of ready-made binaries (Options.BinaryAssetsDirectory,
//     else $KUBEBUILDER_ASSETS, as setup-envtest makes it), each checked
//     with --version against the pinned version;
//  2. the binary cache, os.UserCacheDir()/ctrlkit/bin/<key> (or
//     Options.CacheDir, or $CTRLKIT_ENVTEST_CACHE), where the key hashes
//     the pinned versions;
//  3. official release downloads, each file's published digest checked
//     before it is used or kept (off under CI=true, with
//     CTRLKIT_ENVTEST_DOWNLOAD=off or Options.NoDownload);
//  4. a build with the go command from the Go module proxy, at the versions
//     pinned by the build module this package embeds (edited in ctrlkit's
//     internal/cpbuild), in one go build, with its progress in the log.
//
// Guarantees: nothing unverified is run or cached; an interrupted download
// or build never leaves a broken program in the cache (files are renamed
// into place when complete); concurrent callers, in one process or several,
// wait for one build under a file lock; a failed download is one log line,
// and the program is built instead.
package binaries
