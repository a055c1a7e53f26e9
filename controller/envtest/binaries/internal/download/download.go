package download

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
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// Where official releases are published (binaries.Options can name mirrors).
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

// client fails fast where release hosts cannot be reached: a machine that
// reaches only a module proxy loses a few seconds, not minutes, before it
// builds.
var client = &http.Client{Transport: &http.Transport{
	Proxy:                 http.ProxyFromEnvironment,
	DialContext:           (&net.Dialer{Timeout: 3 * time.Second}).DialContext,
	TLSHandshakeTimeout:   5 * time.Second,
	ResponseHeaderTimeout: 10 * time.Second,
}}

// The programs official releases provide: the envtest tarball has etcd,
// kube-apiserver and kubectl, the Kubernetes release the scheduler and the
// controller manager (and kwok's release kwok and its stages, Kwok).
var (
	EnvtestTarballPrograms    = []string{"etcd", "kube-apiserver", "kubectl"}
	KubernetesReleasePrograms = []string{"kube-scheduler", "kube-controller-manager"}
)

// releaseIndex is the envtest release index: version, then archive name,
// then the archive's SHA-512 digest and address.
type releaseIndex struct {
	Releases map[string]map[string]struct {
		Hash     string `json:"hash"`
		SelfLink string `json:"selfLink"`
	} `json:"releases"`
}

// EnvtestTarball fetches the envtest archive of version for this
// platform, checks its SHA-512 digest against the index, and unpacks etcd,
// kube-apiserver and kubectl into dir.
func EnvtestTarball(ctx context.Context, indexURL, dir, version string) error {
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
	return unpackPrograms(archive, dir, EnvtestTarballPrograms)
}

// KubernetesProgram fetches one program and its published SHA-256
// digest, and gives it its final name dst once the digest matches.
func KubernetesProgram(ctx context.Context, url, dst string) error {
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
	resp, err := client.Do(req)
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
		if hdr.Typeflag != tar.TypeReg || !slices.Contains(names, strings.TrimSuffix(base, ".exe")) {
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

// FileExists says whether p exists.
func FileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func exeName(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}
