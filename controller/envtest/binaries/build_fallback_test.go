package binaries

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/controller/envtest/internal/kwokstages"
	"github.com/ctrlkit/ctrlkit/controller/envtest/internal/kwokstages/stagestest"
)

// fakeGo puts a go command on PATH that stands in for the toolchain: it
// records each invocation in a file, answers go mod download -json with
// the pinned versions and a fixture kwok module (its stage files), and
// makes go build -o dir/ write, for each main package, a small program
// that prints the package's path, under the name the go command gives it.
// The build fallback then runs as it does for real, in seconds.
type fakeGo struct {
	calls string // one line per invocation
}

func (f *fakeGo) invocations(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(f.calls)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

func installFakeGo(t *testing.T) *fakeGo {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake go command is a shell script")
	}
	bin, kwokMod := t.TempDir(), t.TempDir()
	for name, body := range map[string]string{
		"node/fast/node-initialize.yaml":                stagestest.NodeInit,
		"node/heartbeat-with-lease/node-heartbeat.yaml": strings.ReplaceAll(stagestest.NodeInit, "node-initialize", "node-heartbeat-with-lease"),
		"pod/fast/pod-ready.yaml":                       stagestest.PodReady,
		"pod/fast/kustomization.yaml":                   "resources: [pod-ready.yaml]\n",
		"volume/fast/unused.yaml":                       "a stage set envtest does not use\n",
	} {
		path := filepath.Join(kwokMod, "kustomize", "stage", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pinned := pinnedVersions(buildGoMod)
	var mods strings.Builder
	for _, m := range []string{kubernetesModule, etcdModule, kwokModule} {
		dir := t.TempDir()
		if m == kwokModule {
			dir = kwokMod
		}
		fmt.Fprintf(&mods, "    %s) printf '{\"Path\":\"%%s\",\"Version\":\"%s\",\"Dir\":\"%s\"}\\n' \"$m\";;\n", m, pinned[m], dir)
	}
	f := &fakeGo{calls: filepath.Join(t.TempDir(), "calls")}
	script := `#!/bin/sh
echo "$*" >> '` + f.calls + `'
case "$1" in
mod)
  shift 3 # mod download -json
  for m in "$@"; do
    case "$m" in
` + mods.String() + `    *) printf '{"Path":"%s","Error":"unknown module"}\n' "$m";;
    esac
  done;;
build)
  while [ "$1" != "-o" ]; do shift; done
  out=$2
  shift 2
  for pkg in "$@"; do
    name=${pkg##*/}
    case "$name" in v[2-9]*) name=$(basename "$(dirname "$pkg")");; esac
    printf '#!/bin/sh\necho %s\n' "$pkg" > "$out$name"
    chmod 755 "$out$name"
  done;;
*) echo "fake go: unexpected $*" >&2; exit 2;;
esac
`
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return f
}

// With no assets directory and no downloads, everything is built in one go
// build, with the estimate and progress in the log; the cache then serves
// the next start without the go command.
func TestBuildFallbackBuildsIntoTheCache(t *testing.T) {
	noSources(t, "")
	fg := installFakeGo(t)
	var log bytes.Buffer
	opts := Options{Full: true, CacheDir: t.TempDir(), Log: &log}
	b, err := Ensure(t.Context(), opts)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	dir := filepath.Join(opts.CacheDir, cacheKey(buildGoMod, buildGoSum))
	for _, p := range (Options{Full: true}).programs() {
		if got := b.Path(p.name); got != filepath.Join(dir, p.name) {
			t.Errorf("Path(%s) = %s, want it in the cache %s", p.name, got, dir)
		}
		out, err := exec.Command(b.Path(p.name)).Output()
		if err != nil || strings.TrimSpace(string(out)) != p.pkg {
			t.Errorf("%s printed %q, %v; want the program built from %s", p.name, out, err, p.pkg)
		}
	}
	if _, err := os.Stat(filepath.Join(b.StagesDir(), "volume")); err == nil {
		t.Error("stages holds a stage set envtest does not use")
	}
	if _, err := kwokstages.Config(b.StagesDir(), kwokstages.Readiness{}); err != nil {
		t.Errorf("the stages copied from the kwok module: %v", err)
	}
	if st, _ := os.ReadDir(filepath.Join(b.StagesDir(), "pod", "fast")); len(st) != 1 {
		t.Errorf("stages/pod/fast holds %v, want pod-ready.yaml alone (no kustomization)", st)
	}
	pinned := pinnedVersions(buildGoMod)
	for _, m := range []string{kubernetesModule, etcdModule, kwokModule} {
		if b.Versions[m] != pinned[m] {
			t.Errorf("version of %s = %q, want the pinned %s", m, b.Versions[m], pinned[m])
		}
	}
	var builds []string
	for _, c := range fg.invocations(t) {
		if strings.HasPrefix(c, "build ") {
			builds = append(builds, c)
		}
	}
	if len(builds) != 1 || !strings.Contains(builds[0], "-trimpath") || !strings.Contains(builds[0], "-s -w") {
		t.Errorf("go build runs %q; want one, with -trimpath and -ldflags -s -w", builds)
	}
	for _, p := range (Options{Full: true}).programs() {
		if len(builds) == 1 && !slices.Contains(strings.Fields(builds[0]), p.pkg) {
			t.Errorf("the go build does not build %s: %s", p.pkg, builds[0])
		}
	}
	for _, want := range []string{
		"no ready-made binaries for etcd, kube-apiserver, kwok, kube-scheduler, kube-controller-manager",
		"building etcd, kube-apiserver, kwok, kube-scheduler, kube-controller-manager from the Go module proxy into " + dir + ", in one go build",
		"a cold build takes minutes",
		"[5/5] built",
		"build finished in",
	} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, log.String())
		}
	}
	if left := leftovers(t, dir); len(left) > 0 {
		t.Errorf("temporary files left in %s: %v", dir, left)
	}

	// The cache serves the next start: the go command is not run again.
	before := len(fg.invocations(t))
	if _, err := Ensure(t.Context(), opts); err != nil {
		t.Fatal(err)
	}
	if n := len(fg.invocations(t)) - before; n != 0 {
		t.Errorf("a start from the cache ran the go command %d times", n)
	}
}

// A failed download falls back to the build itself, not only to the
// choice of one: the programs the release could not give are built into
// the cache, and only those.
func TestFailedDownloadFallsBackToTheBuild(t *testing.T) {
	rs := newReleaseServer(t)
	rs.broken["envtest"] = corrupt
	fg := installFakeGo(t)
	var log bytes.Buffer
	opts := rs.options(t, false, &recordingBuilder{}, &log)
	opts.build = nil // the real build, with the fake go command
	opts.Kubectl = false
	b, err := Ensure(t.Context(), opts)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	dir := filepath.Join(opts.CacheDir, cacheKey(buildGoMod, buildGoSum))
	for _, name := range []string{"etcd", "kube-apiserver"} {
		if got := b.Path(name); got != filepath.Join(dir, name) {
			t.Errorf("Path(%s) = %s, want it built into %s", name, got, dir)
		}
	}
	calls := strings.Join(fg.invocations(t), "\n")
	if !strings.Contains(calls, "build ") || strings.Contains(calls, "kwok/cmd") || strings.Contains(calls, "cmd/kubectl") {
		t.Errorf("go ran:\n%s\nwant a build of etcd and kube-apiserver alone", calls)
	}
	if !strings.Contains(log.String(), "download of the envtest release "+rs.version+" failed") {
		t.Errorf("the log does not say why it builds:\n%s", log.String())
	}
}
