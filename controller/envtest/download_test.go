package envtest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// releaseServer serves an envtest release index, its tarball and the
// Kubernetes release programs, made in the test, and can misbehave.
type releaseServer struct {
	*httptest.Server
	version  string
	tarball  []byte
	programs map[string][]byte // kube-scheduler, kube-controller-manager
	requests atomic.Int32

	corrupt     bool // the index gives a digest the tarball does not have
	missing     bool // the tarball is not there (404)
	interrupted bool // the tarball's connection drops halfway
}

func script(out string) []byte { return []byte("#!/bin/sh\ncat <<'END'\n" + out + "\nEND\n") }

func newReleaseServer(t *testing.T) *releaseServer {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("fixture binaries are shell scripts")
	}
	pinned := pinnedVersions(buildGoMod)
	rs := &releaseServer{version: pinned[kubernetesModule], programs: map[string][]byte{}}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range envtestTarballPrograms {
		module := kubernetesModule
		if name == "etcd" {
			module = etcdModule
		}
		body := script(versionOutput(name, pinned[module]))
		if err := tw.WriteHeader(&tar.Header{Name: "controller-tools/envtest/" + name, Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	rs.tarball = buf.Bytes()
	for _, name := range kubernetesReleaseProgs {
		rs.programs[name] = script(versionOutput(name, rs.version))
	}
	rs.Server = httptest.NewServer(http.HandlerFunc(rs.serve))
	t.Cleanup(rs.Close)
	return rs
}

func (rs *releaseServer) serve(w http.ResponseWriter, r *http.Request) {
	rs.requests.Add(1)
	tarName := fmt.Sprintf("envtest-%s-%s-%s.tar.gz", rs.version, runtime.GOOS, runtime.GOARCH)
	switch {
	case r.URL.Path == "/envtest-releases.yaml":
		sum := sha512.Sum512(rs.tarball)
		digest := hex.EncodeToString(sum[:])
		if rs.corrupt {
			digest = strings.Repeat("0", len(digest))
		}
		fmt.Fprintf(w, "releases:\n  %s:\n    %s:\n      hash: %s\n      selfLink: %s/dl/%s\n", rs.version, tarName, digest, rs.URL, tarName)
	case r.URL.Path == "/dl/"+tarName:
		if rs.missing {
			http.NotFound(w, r)
			return
		}
		if rs.interrupted {
			w.Header().Set("Content-Length", fmt.Sprint(len(rs.tarball)))
			w.Write(rs.tarball[:len(rs.tarball)/2])
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler) // drops the connection mid-body
		}
		w.Write(rs.tarball)
	default:
		prefix := fmt.Sprintf("/k8s/%s/bin/%s/%s/", rs.version, runtime.GOOS, runtime.GOARCH)
		name, ok := strings.CutPrefix(r.URL.Path, prefix)
		if !ok {
			http.NotFound(w, r)
			return
		}
		if base, isSum := strings.CutSuffix(name, ".sha256"); isSum {
			if body, ok := rs.programs[base]; ok {
				sum := sha256.Sum256(body)
				fmt.Fprint(w, hex.EncodeToString(sum[:]))
				return
			}
		}
		if body, ok := rs.programs[name]; ok {
			w.Write(body)
			return
		}
		http.NotFound(w, r)
	}
}

func (rs *releaseServer) options(t *testing.T, mode Mode, rb *recordingBuilder, log *bytes.Buffer) Options {
	t.Setenv(AssetsEnv, "")
	t.Setenv(DownloadEnv, "on")
	return Options{
		Mode: mode, Kubectl: true, CacheDir: t.TempDir(), Log: log, buildFunc: rb.build,
		ReleaseIndexURL: rs.URL + "/envtest-releases.yaml", KubernetesReleaseURL: rs.URL + "/k8s",
	}
}

func downloadDir(opts Options, version string) string {
	return filepath.Join(opts.CacheDir, "downloads", fmt.Sprintf("%s-%s-%s", version, runtime.GOOS, runtime.GOARCH))
}

// leftovers lists the files in dir that are not finished programs.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			left = append(left, e.Name())
		}
	}
	return left
}

func TestDownloadGood(t *testing.T) {
	rs := newReleaseServer(t)
	var log bytes.Buffer
	var rb recordingBuilder
	opts := rs.options(t, Full, &rb, &log)
	b, err := EnsureBinaries(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rb.asked, []string{"kwok"}) {
		t.Errorf("built %v, want kwok alone (its stages come from its module)", rb.asked)
	}
	dl := downloadDir(opts, rs.version)
	for _, name := range []string{"etcd", "kube-apiserver", "kubectl", "kube-scheduler", "kube-controller-manager"} {
		if got := b.Path(name); got != filepath.Join(dl, name) {
			t.Errorf("Path(%s) = %s, want it downloaded into %s", name, got, dl)
		}
	}
	if left := leftovers(t, dl); len(left) > 0 {
		t.Errorf("temporary files left in %s: %v", dl, left)
	}
	if strings.Contains(log.String(), "warning") || !strings.Contains(log.String(), "downloaded into "+dl) {
		t.Errorf("log:\n%s", log.String())
	}

	// The next run uses the verified files without asking the server.
	before := rs.requests.Load()
	if _, err := EnsureBinaries(t.Context(), opts); err != nil {
		t.Fatal(err)
	}
	if n := rs.requests.Load() - before; n != 0 {
		t.Errorf("the second run made %d requests, want none", n)
	}
}

func TestDownloadFailuresFallBackToBuild(t *testing.T) {
	for _, tc := range []struct {
		name    string
		break_  func(*releaseServer)
		wantLog string
	}{
		{"corrupt", func(rs *releaseServer) { rs.corrupt = true }, "digest"},
		{"missing", func(rs *releaseServer) { rs.missing = true }, "404"},
		{"interrupted", func(rs *releaseServer) { rs.interrupted = true }, "unexpected EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := newReleaseServer(t)
			tc.break_(rs)
			var log bytes.Buffer
			var rb recordingBuilder
			opts := rs.options(t, APIServerOnly, &rb, &log)
			if _, err := EnsureBinaries(t.Context(), opts); err != nil {
				t.Fatal(err)
			}
			slices.Sort(rb.asked)
			if want := []string{"etcd", "kube-apiserver", "kubectl"}; !slices.Equal(rb.asked, want) {
				t.Errorf("built %v, want %v", rb.asked, want)
			}
			dl := downloadDir(opts, rs.version)
			entries, _ := os.ReadDir(dl)
			if len(entries) != 0 {
				t.Errorf("%s holds %v after a failed download; want nothing", dl, entries)
			}
			if !strings.Contains(log.String(), "download of the envtest release "+rs.version+" failed") || !strings.Contains(log.String(), tc.wantLog) {
				t.Errorf("the log does not say why (%q):\n%s", tc.wantLog, log.String())
			}
		})
	}
}

func TestDownloadsOff(t *testing.T) {
	for _, tc := range []struct{ name, env, ci string }{
		{"env off", "off", ""},
		{"CI", "", "true"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := newReleaseServer(t)
			var log bytes.Buffer
			var rb recordingBuilder
			opts := rs.options(t, APIServerOnly, &rb, &log)
			t.Setenv(DownloadEnv, tc.env)
			t.Setenv("CI", tc.ci)
			if _, err := EnsureBinaries(t.Context(), opts); err != nil {
				t.Fatal(err)
			}
			if n := rs.requests.Load(); n != 0 || rb.calls != 1 {
				t.Errorf("%d requests and %d builds; want none and one", n, rb.calls)
			}
		})
	}
	rs := newReleaseServer(t)
	var rb recordingBuilder
	var log bytes.Buffer
	opts := rs.options(t, APIServerOnly, &rb, &log)
	opts.NoDownload = true
	if _, err := EnsureBinaries(t.Context(), opts); err != nil {
		t.Fatal(err)
	}
	if n := rs.requests.Load(); n != 0 {
		t.Errorf("Options.NoDownload: %d requests", n)
	}
}
