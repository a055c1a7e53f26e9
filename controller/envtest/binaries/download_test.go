package binaries

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
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

	"github.com/ctrlkit/ctrlkit/controller/envtest/binaries/internal/download"
	"github.com/ctrlkit/ctrlkit/controller/envtest/internal/kwokstages"
	"github.com/ctrlkit/ctrlkit/controller/envtest/internal/kwokstages/stagestest"
)

// releaseServer serves, from fixtures made in the test, what official
// releases publish: the envtest release index and its tarball, the
// Kubernetes release programs with their .sha256 files, and kwok's GitHub
// release (its API answer, its binary and stage-fast.yaml). Each artefact
// can be made to misbehave.
type releaseServer struct {
	*httptest.Server
	version     string
	kwokVersion string
	tarball     []byte
	programs    map[string][]byte // kube-scheduler, kube-controller-manager
	kwok        []byte
	kwokStages  []byte
	requests    atomic.Int32

	// broken maps an artefact ("envtest" for the tarball, a program's
	// name, or "stage-fast.yaml") to how it misbehaves.
	broken map[string]breakage
}

type breakage int

const (
	corrupt     breakage = iota + 1 // a published digest the file does not have
	missing                         // not there (404)
	interrupted                     // the connection drops halfway through the body
	noDigest                        // kwok's release lists the asset without a digest
	wrongTag                        // kwok's release answers for another version
)

func script(out string) []byte { return []byte("#!/bin/sh\ncat <<'END'\n" + out + "\nEND\n") }

func newReleaseServer(t *testing.T) *releaseServer {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("fixture binaries are shell scripts")
	}
	pinned := pinnedVersions(buildGoMod)
	rs := &releaseServer{version: pinned[kubernetesModule], kwokVersion: pinned[kwokModule], programs: map[string][]byte{}, broken: map[string]breakage{}}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range download.EnvtestTarballPrograms {
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
	for _, name := range download.KubernetesReleasePrograms {
		rs.programs[name] = script(versionOutput(name, rs.version))
	}
	rs.kwok = script(versionOutput("kwok", rs.kwokVersion))
	rs.kwokStages = []byte("---\n" + stagestest.NodeInit + "---\n" + stagestest.PodReady)
	rs.Server = httptest.NewServer(http.HandlerFunc(rs.serve))
	t.Cleanup(rs.Close)
	return rs
}

func hexSHA256(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// digest is the digest published for artefact, made wrong when it is to
// be corrupt.
func (rs *releaseServer) digest(artefact, sum string) string {
	if rs.broken[artefact] == corrupt {
		return strings.Repeat("0", len(sum))
	}
	return sum
}

// body serves b as artefact, or misbehaves as broken says.
func (rs *releaseServer) body(w http.ResponseWriter, r *http.Request, artefact string, b []byte) {
	switch rs.broken[artefact] {
	case missing:
		http.NotFound(w, r)
	case interrupted:
		w.Header().Set("Content-Length", fmt.Sprint(len(b)))
		w.Write(b[:len(b)/2])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // drops the connection mid-body
	default:
		w.Write(b)
	}
}

func (rs *releaseServer) serve(w http.ResponseWriter, r *http.Request) {
	rs.requests.Add(1)
	tarName := fmt.Sprintf("envtest-%s-%s-%s.tar.gz", rs.version, runtime.GOOS, runtime.GOARCH)
	kwokDir := "/kwok/download/" + rs.kwokVersion + "/"
	switch {
	case r.URL.Path == "/envtest-releases.yaml":
		sum := sha512.Sum512(rs.tarball)
		digest := rs.digest("envtest", hex.EncodeToString(sum[:]))
		fmt.Fprintf(w, "releases:\n  %s:\n    %s:\n      hash: %s\n      selfLink: %s/dl/%s\n", rs.version, tarName, digest, rs.URL, tarName)
	case r.URL.Path == "/dl/"+tarName:
		rs.body(w, r, "envtest", rs.tarball)
	case r.URL.Path == "/kwok/releases/tags/"+rs.kwokVersion:
		if rs.broken["kwok-release"] == missing {
			http.NotFound(w, r)
			return
		}
		// The fields of GitHub's release object that name and check assets.
		type asset struct {
			Name   string `json:"name"`
			URL    string `json:"browser_download_url"`
			Digest string `json:"digest,omitempty"`
		}
		rel := struct {
			TagName string  `json:"tag_name"`
			Assets  []asset `json:"assets"`
		}{TagName: rs.kwokVersion}
		if rs.broken["kwok-release"] == wrongTag {
			rel.TagName = "v0.0.1"
		}
		for name, b := range map[string][]byte{download.KwokAssetName(): rs.kwok, download.KwokStagesAsset: rs.kwokStages, "kwokctl-" + runtime.GOOS + "-" + runtime.GOARCH: []byte("kwokctl")} {
			a := asset{Name: name, URL: rs.URL + kwokDir + name, Digest: "sha256:" + rs.digest(name, hexSHA256(b))}
			if rs.broken[name] == noDigest {
				a.Digest = ""
			}
			rel.Assets = append(rel.Assets, a)
		}
		json.NewEncoder(w).Encode(rel)
	case r.URL.Path == kwokDir+download.KwokAssetName():
		rs.body(w, r, download.KwokAssetName(), rs.kwok)
	case r.URL.Path == kwokDir+download.KwokStagesAsset:
		rs.body(w, r, download.KwokStagesAsset, rs.kwokStages)
	default:
		prefix := fmt.Sprintf("/k8s/%s/bin/%s/%s/", rs.version, runtime.GOOS, runtime.GOARCH)
		name, ok := strings.CutPrefix(r.URL.Path, prefix)
		if !ok {
			http.NotFound(w, r)
			return
		}
		if base, isSum := strings.CutSuffix(name, ".sha256"); isSum {
			if body, ok := rs.programs[base]; ok {
				fmt.Fprint(w, rs.digest(base, hexSHA256(body)))
				return
			}
		}
		if body, ok := rs.programs[name]; ok {
			rs.body(w, r, name, body)
			return
		}
		http.NotFound(w, r)
	}
}

func (rs *releaseServer) options(t *testing.T, full bool, rb *recordingBuilder, log *bytes.Buffer) Options {
	t.Setenv(AssetsEnv, "")
	t.Setenv(DownloadEnv, "on")
	return Options{
		Full: full, Kubectl: true, CacheDir: t.TempDir(), Log: log, build: rb.build,
		ReleaseIndexURL: rs.URL + "/envtest-releases.yaml", KubernetesReleaseURL: rs.URL + "/k8s",
		KwokReleaseURL: rs.URL + "/kwok/releases/tags",
	}
}

func downloadDir(opts Options, version string) string {
	return filepath.Join(opts.CacheDir, "downloads", fmt.Sprintf("%s-%s-%s", version, runtime.GOOS, runtime.GOARCH))
}

func kwokDownloadDir(opts Options, version string) string {
	return filepath.Join(opts.CacheDir, "downloads", fmt.Sprintf("kwok-%s-%s-%s", version, runtime.GOOS, runtime.GOARCH))
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
	opts := rs.options(t, true, &rb, &log)
	b, err := Ensure(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if rb.calls != 0 {
		t.Errorf("built %v, want nothing built", rb.asked)
	}
	dl, kd := downloadDir(opts, rs.version), kwokDownloadDir(opts, rs.kwokVersion)
	for _, name := range []string{"etcd", "kube-apiserver", "kubectl", "kube-scheduler", "kube-controller-manager"} {
		if got := b.Path(name); got != filepath.Join(dl, name) {
			t.Errorf("Path(%s) = %s, want it downloaded into %s", name, got, dl)
		}
	}
	if got := b.Path("kwok"); got != filepath.Join(kd, "kwok") {
		t.Errorf("Path(kwok) = %s, want it downloaded into %s", got, kd)
	}
	if got := b.StagesDir(); got != filepath.Join(kd, "stages") {
		t.Errorf("StagesDir = %s, want kwok's release stages in %s", got, kd)
	}
	if _, err := kwokstages.Config(b.StagesDir(), kwokstages.Readiness{}); err != nil {
		t.Errorf("the downloaded stages do not make a kwok configuration: %v", err)
	}
	for _, dir := range []string{dl, kd} {
		if left := leftovers(t, dir); len(left) > 0 {
			t.Errorf("temporary files left in %s: %v", dir, left)
		}
	}
	for _, want := range []string{"downloaded into " + dl, "downloading kwok " + rs.kwokVersion + " and its stages from its release into " + kd, "using kwok, downloaded from kwok's release into " + kd} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, log.String())
		}
	}
	if strings.Contains(log.String(), "warning") {
		t.Errorf("log:\n%s", log.String())
	}

	// The next run uses the verified files without asking the server.
	before := rs.requests.Load()
	if _, err := Ensure(t.Context(), opts); err != nil {
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
		{"corrupt", func(rs *releaseServer) { rs.broken["envtest"] = corrupt }, "digest"},
		{"missing", func(rs *releaseServer) { rs.broken["envtest"] = missing }, "404"},
		{"interrupted", func(rs *releaseServer) { rs.broken["envtest"] = interrupted }, "unexpected EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := newReleaseServer(t)
			tc.break_(rs)
			var log bytes.Buffer
			var rb recordingBuilder
			opts := rs.options(t, false, &rb, &log)
			if _, err := Ensure(t.Context(), opts); err != nil {
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
			opts := rs.options(t, false, &rb, &log)
			t.Setenv(DownloadEnv, tc.env)
			t.Setenv("CI", tc.ci)
			if _, err := Ensure(t.Context(), opts); err != nil {
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
	opts := rs.options(t, false, &rb, &log)
	opts.NoDownload = true
	if _, err := Ensure(t.Context(), opts); err != nil {
		t.Fatal(err)
	}
	if n := rs.requests.Load(); n != 0 {
		t.Errorf("Options.NoDownload: %d requests", n)
	}
}

// A Kubernetes release program that cannot be had (a wrong published
// SHA-256, a 404, a dropped connection) is built; the others are still
// downloaded, and nothing of the failed one is left.
func TestKubernetesProgramDownloadFailuresFallBackToBuild(t *testing.T) {
	for _, tc := range []struct {
		name    string
		how     breakage
		wantLog string
	}{
		{"corrupt", corrupt, "digest"},
		{"missing", missing, "404"},
		{"interrupted", interrupted, "unexpected EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := newReleaseServer(t)
			rs.broken["kube-scheduler"] = tc.how
			var log bytes.Buffer
			var rb recordingBuilder
			opts := rs.options(t, true, &rb, &log)
			b, err := Ensure(t.Context(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rb.asked, []string{"kube-scheduler"}) {
				t.Errorf("built %v, want kube-scheduler alone", rb.asked)
			}
			dl := downloadDir(opts, rs.version)
			if got := b.Path("kube-controller-manager"); got != filepath.Join(dl, "kube-controller-manager") {
				t.Errorf("Path(kube-controller-manager) = %s, want it downloaded", got)
			}
			if download.FileExists(filepath.Join(dl, "kube-scheduler")) {
				t.Errorf("%s holds a kube-scheduler after a failed download", dl)
			}
			if left := leftovers(t, dl); len(left) > 0 {
				t.Errorf("temporary files left in %s: %v", dl, left)
			}
			if !strings.Contains(log.String(), "download of kube-scheduler "+rs.version+" failed") || !strings.Contains(log.String(), tc.wantLog) {
				t.Errorf("the log does not say why (%q):\n%s", tc.wantLog, log.String())
			}
		})
	}
}

// kwok comes from its GitHub release, checked against the SHA-256 digests
// GitHub publishes for each asset; any failure builds it from the module
// proxy, says why in one line, and leaves nothing in the download
// directory: neither the binary nor the stages, whichever of the two
// failed.
func TestKwokDownloadFailuresFallBackToBuild(t *testing.T) {
	bin := download.KwokAssetName()
	for _, tc := range []struct {
		name     string
		artefact string
		how      breakage
		wantLog  string
	}{
		{"corrupt binary", bin, corrupt, "digest"},
		{"corrupt stages", download.KwokStagesAsset, corrupt, "digest"},
		{"no digest", bin, noDigest, "no SHA-256 digest for " + bin},
		{"missing release", "kwok-release", missing, "404"},
		{"another version", "kwok-release", wrongTag, `is "v0.0.1", not`},
		{"missing binary", bin, missing, "404"},
		{"interrupted binary", bin, interrupted, "unexpected EOF"},
		{"interrupted stages", download.KwokStagesAsset, interrupted, "unexpected EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := newReleaseServer(t)
			rs.broken[tc.artefact] = tc.how
			var log bytes.Buffer
			var rb recordingBuilder
			opts := rs.options(t, true, &rb, &log)
			b, err := Ensure(t.Context(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rb.asked, []string{"kwok"}) {
				t.Errorf("built %v, want kwok alone", rb.asked)
			}
			if got := b.Path("kwok"); !strings.HasPrefix(got, opts.CacheDir) || strings.Contains(got, "downloads") {
				t.Errorf("Path(kwok) = %s, want the built one in the binary cache", got)
			}
			kd := kwokDownloadDir(opts, rs.kwokVersion)
			if entries, _ := os.ReadDir(kd); len(entries) != 0 {
				t.Errorf("%s holds %v after a failed download; want nothing", kd, entries)
			}
			lines := 0
			for _, line := range strings.Split(log.String(), "\n") {
				if strings.Contains(line, "download of kwok "+rs.kwokVersion+" from its release failed") {
					lines++
					if !strings.Contains(line, tc.wantLog) || !strings.HasSuffix(line, "building it instead") {
						t.Errorf("the line does not say why (%q) and what follows: %s", tc.wantLog, line)
					}
				}
			}
			if lines != 1 {
				t.Errorf("%d lines about kwok's download, want one:\n%s", lines, log.String())
			}
		})
	}
}

// Two downloads of kwok into one directory at once (two test binaries'
// first runs) both succeed, and leave one kwok and one stages folder.
func TestConcurrentKwokDownloads(t *testing.T) {
	rs := newReleaseServer(t)
	dir := t.TempDir()
	errs := make(chan error, 2)
	for range 2 {
		go func() { errs <- download.Kwok(t.Context(), rs.URL+"/kwok/releases/tags", dir, rs.kwokVersion) }()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if left := leftovers(t, dir); len(left) > 0 {
		t.Errorf("temporary files left in %s: %v", dir, left)
	}
	if _, err := kwokstages.Config(filepath.Join(dir, "stages"), kwokstages.Readiness{}); err != nil || !download.FileExists(filepath.Join(dir, "kwok")) {
		t.Errorf("kwok there: %v; stages: %v", download.FileExists(filepath.Join(dir, "kwok")), err)
	}
}
