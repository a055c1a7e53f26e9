package binaries

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctrlkit/ctrlkit/controller/envtest/binaries/internal/download"
)

// Options say which programs Ensure provides and where it may look. The
// zero value provides etcd and kube-apiserver from the default sources.
type Options struct {
	// Full adds what envtest's Full mode runs: kube-scheduler,
	// kube-controller-manager and kwok with its stages.
	Full bool

	// Kubectl adds kubectl; the control plane does not need it.
	Kubectl bool

	// BinaryAssetsDirectory is a directory of ready-made binaries, as
	// controller-runtime's setup-envtest installs them: etcd,
	// kube-apiserver and kubectl from there, and kube-scheduler,
	// kube-controller-manager and kwok (with its stage files in a stages
	// folder) when present. Programs it lacks come from the other sources.
	// Empty means $KUBEBUILDER_ASSETS.
	BinaryAssetsDirectory string

	// VersionMismatch decides what a binary of BinaryAssetsDirectory (or a
	// download) does when its --version differs from the pinned version:
	// UseWithWarning (the zero value) or BuildPinned.
	VersionMismatch VersionMismatch

	// CacheDir is the directory under which built binaries are cached, one
	// subdirectory per set of pinned versions, and downloads under
	// downloads/. Empty means CacheDir().
	CacheDir string

	// NoDownload turns off downloads of official release binaries (see
	// DownloadEnv for the default). When on, the programs the assets
	// directory and the binary cache lack are downloaded (etcd,
	// kube-apiserver and kubectl from the envtest release index;
	// kube-scheduler and kube-controller-manager from the Kubernetes
	// release), each digest verified before use, into
	// CacheDir/downloads/<version>-<os>-<arch>, and kwok with its stages
	// from its GitHub release into CacheDir/downloads/kwok-<version>-<os>-<arch>.
	// What cannot be downloaded is built, with the reason logged in one
	// line.
	NoDownload bool

	// ReleaseIndexURL, KubernetesReleaseURL and KwokReleaseURL name mirrors
	// of controller-tools' envtest release index (default
	// https://raw.githubusercontent.com/kubernetes-sigs/controller-tools/HEAD/envtest-releases.yaml),
	// of the Kubernetes release downloads (https://dl.k8s.io/release) and of
	// kwok's GitHub releases by tag
	// (https://api.github.com/repos/kubernetes-sigs/kwok/releases/tags).
	ReleaseIndexURL      string
	KubernetesReleaseURL string
	KwokReleaseURL       string

	// Log receives where each program comes from, why a download failed,
	// and a build's progress. Nil discards them.
	Log io.Writer

	// build replaces the go build in tests, which check that a build is
	// chosen without running one.
	build func(ctx context.Context, dir string, need []program, log io.Writer) (*Set, error)
}

// AssetsEnv names the environment variable that, as in controller-runtime's
// envtest, points at a directory of ready-made binaries (as setup-envtest
// installs them). Options.BinaryAssetsDirectory overrides it.
const AssetsEnv = "KUBEBUILDER_ASSETS"

// CacheDirEnv names the environment variable that, when set, replaces
// os.UserCacheDir()/ctrlkit/bin as the binary cache (Options.CacheDir
// overrides both).
const CacheDirEnv = "CTRLKIT_ENVTEST_CACHE"

// DownloadEnv names the environment variable that turns downloads of
// official release binaries off ("off", "0", "false" or "no") or on ("on",
// "1", "true", "yes"). Unset, downloads are on, except when CI=true: CI
// machines often reach only a module proxy, and a build there is expected.
const DownloadEnv = "CTRLKIT_ENVTEST_DOWNLOAD"

// VersionMismatch decides what happens to a ready-made binary whose
// version differs from the pinned one.
type VersionMismatch int

const (
	// UseWithWarning runs the binary found and logs a warning (the zero
	// value): a setup-envtest directory of a nearby release serves most
	// tests.
	UseWithWarning VersionMismatch = iota
	// BuildPinned ignores the binary found and builds the pinned version.
	BuildPinned
)

// CacheDir returns the directory under which binaries are cached:
// $CTRLKIT_ENVTEST_CACHE, else os.UserCacheDir()/ctrlkit/bin.
func CacheDir() (string, error) {
	if dir := os.Getenv(CacheDirEnv); dir != "" {
		return filepath.Abs(dir)
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache directory (set %s): %w", CacheDirEnv, err)
	}
	return filepath.Join(base, "ctrlkit", "bin"), nil
}

// assetsDir is the directory of ready-made binaries the options name, or "".
func (o Options) assetsDir() string {
	if o.BinaryAssetsDirectory != "" {
		return o.BinaryAssetsDirectory
	}
	return os.Getenv(AssetsEnv)
}

// assetsSource names where an assets directory came from, for the log.
func (o Options) assetsSource() string {
	if o.BinaryAssetsDirectory != "" {
		return "Options.BinaryAssetsDirectory"
	}
	return "$" + AssetsEnv
}

// downloadsOn says whether the options allow downloads.
func (o Options) downloadsOn() bool {
	if o.NoDownload {
		return false
	}
	switch strings.ToLower(os.Getenv(DownloadEnv)) {
	case "off", "0", "false", "no":
		return false
	case "on", "1", "true", "yes":
		return true
	}
	return os.Getenv("CI") != "true"
}

func (o Options) releaseIndexURL() string {
	return or(o.ReleaseIndexURL, download.DefaultReleaseIndexURL)
}

func (o Options) kubernetesReleaseURL() string {
	return or(o.KubernetesReleaseURL, download.DefaultKubernetesReleaseURL)
}

func (o Options) kwokReleaseURL() string {
	return or(o.KwokReleaseURL, download.DefaultKwokReleaseURL)
}

func or(s, def string) string {
	if s != "" {
		return s
	}
	return def
}

func (o Options) log() io.Writer {
	if o.Log == nil {
		return io.Discard
	}
	return o.Log
}
