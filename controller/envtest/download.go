package envtest

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// DownloadEnv names the environment variable that turns downloads of
// official release binaries off ("off", "0" or "false") or on ("on", "1",
// "true"). Unset, downloads are on, except when CI=true: CI machines often
// reach only a module proxy, and a build there is expected.
const DownloadEnv = "CTRLKIT_ENVTEST_DOWNLOAD"

// Where official releases are published; Options.ReleaseIndexURL and
// Options.KubernetesReleaseURL replace them (tests serve fixtures locally).
const (
	// DefaultReleaseIndexURL is the envtest release index that
	// controller-tools publishes and setup-envtest reads: for each
	// Kubernetes version and platform, a tarball of etcd, kube-apiserver
	// and kubectl with its SHA-512 digest.
	DefaultReleaseIndexURL = "https://raw.githubusercontent.com/kubernetes-sigs/controller-tools/HEAD/envtest-releases.yaml"
	// DefaultKubernetesReleaseURL serves each Kubernetes program as
	// <url>/<version>/bin/<os>/<arch>/<name>, with its SHA-256 digest in
	// <name>.sha256.
	DefaultKubernetesReleaseURL = "https://dl.k8s.io/release"
)

// downloadsOn says whether opts allow downloads.
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

// downloadClient fails fast where release hosts cannot be reached: a
// machine that reaches only a module proxy loses a few seconds, not
// minutes, before it builds.
var downloadClient = &http.Client{Transport: &http.Transport{
	Proxy:                 http.ProxyFromEnvironment,
	DialContext:           (&net.Dialer{Timeout: 3 * time.Second}).DialContext,
	TLSHandshakeTimeout:   5 * time.Second,
	ResponseHeaderTimeout: 10 * time.Second,
}}

// downloadable are the programs official releases provide: the envtest
// tarball has etcd, kube-apiserver and kubectl, the Kubernetes release the
// scheduler and controller manager, and kwok's release kwok and its stages
// (downloadKwok).
var (
	envtestTarballPrograms = []string{"etcd", "kube-apiserver", "kubectl"}
	kubernetesReleaseProgs = []string{"kube-scheduler", "kube-controller-manager"}
)

// fromReleases downloads what official releases provide of need, under
// base/downloads, one directory per version and platform, and checks each
// downloaded program's version as an assets directory's are. It returns
// what it provides, the directory of the Kubernetes downloads, and what is
// left to build; each failure is one line in log.
func fromReleases(ctx context.Context, opts Options, base string, pinned map[string]string, need []program, log io.Writer) (assets, string, []program) {
	found := assets{paths: map[string]string{}, versions: map[string]string{}}
	k8s := pinned[kubernetesModule]
	dl := filepath.Join(base, "downloads", fmt.Sprintf("%s-%s-%s", k8s, runtime.GOOS, runtime.GOARCH))
	var kwok, others, rest []program
	for _, p := range need {
		if p.module == kwokModule {
			kwok = append(kwok, p)
		} else {
			others = append(others, p)
		}
	}
	// take checks the version of what was downloaded into dir.
	take := func(dir string, got []program, what string) {
		a, bad := findAssets(ctx, dir, got, pinned, opts.VersionMismatch, log)
		found.add(a)
		rest = append(rest, bad...)
		if len(a.paths) > 0 {
			fmt.Fprintf(log, "envtest: using %s, %s into %s\n", strings.Join(sortedNames(a.paths), ", "), what, dir)
		}
	}
	if len(others) > 0 {
		fmt.Fprintf(log, "envtest: downloading official release binaries of Kubernetes %s into %s (%s=off turns this off)\n", k8s, dl, DownloadEnv)
		got, r := download(ctx, opts, dl, k8s, others, log)
		rest = append(rest, r...)
		if len(got) > 0 {
			take(dl, got, "downloaded")
		}
	}
	if len(kwok) > 0 {
		v := pinned[kwokModule]
		dir := filepath.Join(base, "downloads", fmt.Sprintf("kwok-%s-%s-%s", v, runtime.GOOS, runtime.GOARCH))
		if !fileExists(filepath.Join(dir, exeName("kwok"))) {
			fmt.Fprintf(log, "envtest: downloading kwok %s and its stages from its release into %s\n", v, dir)
		}
		if err := downloadKwok(ctx, opts.kwokReleaseURL(), dir, v); err != nil {
			fmt.Fprintf(log, "envtest: download of kwok %s from its release failed (%v); building it instead\n", v, err)
			rest = append(rest, kwok...)
		} else {
			take(dir, kwok, "downloaded from kwok's release")
		}
	}
	return found, dl, rest
}

// download fetches the programs of need that official releases provide
// into dir, verifying each digest before a file takes its final name, and
// returns the programs it could not provide. A program already in dir (a
// verified earlier download) is not fetched again. Each failure is logged
// in one line; the caller builds what is left.
func download(ctx context.Context, opts Options, dir, version string, need []program, log io.Writer) (got, rest []program) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(log, "envtest: no download (%v); building instead\n", err)
		return nil, need
	}
	var tarball, single []program
	for _, p := range need {
		switch {
		case fileExists(filepath.Join(dir, exeName(p.name))):
			got = append(got, p)
		case contains(envtestTarballPrograms, p.name):
			tarball = append(tarball, p)
		case contains(kubernetesReleaseProgs, p.name):
			single = append(single, p)
		default:
			rest = append(rest, p)
		}
	}
	if len(tarball) > 0 {
		if err := downloadEnvtestTarball(ctx, opts.releaseIndexURL(), dir, version); err != nil {
			fmt.Fprintf(log, "envtest: download of the envtest release %s failed (%v); building %s instead\n", version, err, names(tarball))
			rest = append(rest, tarball...)
		} else {
			got = append(got, tarball...)
		}
	}
	for _, p := range single {
		url := fmt.Sprintf("%s/%s/bin/%s/%s/%s", strings.TrimSuffix(opts.kubernetesReleaseURL(), "/"), version, runtime.GOOS, runtime.GOARCH, exeName(p.name))
		if err := downloadKubernetesProgram(ctx, url, filepath.Join(dir, exeName(p.name))); err != nil {
			fmt.Fprintf(log, "envtest: download of %s %s failed (%v); building it instead\n", p.name, version, err)
			rest = append(rest, p)
		} else {
			got = append(got, p)
		}
	}
	return got, rest
}

func (o Options) releaseIndexURL() string {
	if o.ReleaseIndexURL != "" {
		return o.ReleaseIndexURL
	}
	return DefaultReleaseIndexURL
}

func (o Options) kubernetesReleaseURL() string {
	if o.KubernetesReleaseURL != "" {
		return o.KubernetesReleaseURL
	}
	return DefaultKubernetesReleaseURL
}

// releaseIndex is the envtest release index: version, then archive name,
// then the archive's SHA-512 digest and address.
type releaseIndex struct {
	Releases map[string]map[string]struct {
		Hash     string `json:"hash"`
		SelfLink string `json:"selfLink"`
	} `json:"releases"`
}

// downloadEnvtestTarball fetches the envtest archive of version for this
// platform, checks its SHA-512 digest against the index, and unpacks etcd,
// kube-apiserver and kubectl into dir.
func downloadEnvtestTarball(ctx context.Context, indexURL, dir, version string) error {
	data, err := fetchSmall(ctx, indexURL)
	if err != nil {
		return err
	}
	var idx releaseIndex
	if err := yaml.Unmarshal(data, &idx); err != nil {
		return fmt.Errorf("release index %s: %w", indexURL, err)
	}
	name := fmt.Sprintf("envtest-%s-%s-%s.tar.gz", version, runtime.GOOS, runtime.GOARCH)
	entry, ok := idx.Releases[version][name]
	if !ok {
		return fmt.Errorf("release index %s has no %s", indexURL, name)
	}
	archive, err := fetchVerified(ctx, entry.SelfLink, sha512.New(), entry.Hash, dir)
	if err != nil {
		return err
	}
	defer os.Remove(archive)
	return unpackPrograms(archive, dir, envtestTarballPrograms)
}

// downloadKubernetesProgram fetches one program and its published SHA-256
// digest, and gives it its final name dst once the digest matches.
func downloadKubernetesProgram(ctx context.Context, url, dst string) error {
	sum, err := fetchSmall(ctx, url+".sha256")
	if err != nil {
		return err
	}
	fields := strings.Fields(string(sum))
	if len(fields) == 0 {
		return fmt.Errorf("%s.sha256 is empty", url)
	}
	tmp, err := fetchVerified(ctx, url, sha256.New(), fields[0], filepath.Dir(dst))
	if err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, dst)
}

// fetchSmall reads a small document: an index or a digest.
func fetchSmall(ctx context.Context, url string) ([]byte, error) {
	body, err := get(ctx, url)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	return io.ReadAll(io.LimitReader(body, 16<<20))
}

func get(ctx context.Context, url string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := downloadClient.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return resp.Body, nil
}

// fetchVerified downloads url into a temporary file in dir and returns its
// name once its digest equals want (hex); on any failure, a digest mismatch
// or a body cut short, the file is removed and never run.
func fetchVerified(ctx context.Context, url string, h hash.Hash, want, dir string) (_ string, err error) {
	body, err := get(ctx, url)
	if err != nil {
		return "", err
	}
	defer body.Close()
	f, err := os.CreateTemp(dir, ".download-")
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err := io.Copy(io.MultiWriter(f, h), body); err != nil {
		return "", fmt.Errorf("GET %s: %w", url, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); !strings.EqualFold(got, strings.TrimSpace(want)) {
		return "", fmt.Errorf("%s: digest %s, the release says %s", path.Base(url), got, want)
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return f.Name(), nil
}

// unpackPrograms writes the entries of a verified .tar.gz whose base names
// are among names into dir, each under a temporary name first.
func unpackPrograms(archive, dir string, names []string) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	found := 0
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		base := path.Base(hdr.Name)
		if hdr.Typeflag != tar.TypeReg || !contains(names, strings.TrimSuffix(base, ".exe")) {
			continue
		}
		if err := writeExecutable(filepath.Join(dir, base), tr); err != nil {
			return err
		}
		found++
	}
	if found != len(names) {
		return fmt.Errorf("archive has %d of %s", found, strings.Join(names, ", "))
	}
	return nil
}

func writeExecutable(dst string, r io.Reader) error {
	f, err := os.CreateTemp(filepath.Dir(dst), ".unpack-")
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o755)
	}
	if err == nil {
		err = os.Rename(f.Name(), dst)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func names(ps []program) string {
	n := make([]string, len(ps))
	for i, p := range ps {
		n[i] = p.name
	}
	return strings.Join(n, ", ")
}
