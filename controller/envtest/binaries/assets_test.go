package binaries

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// writeVersionScript writes a program into dir that prints out when run,
// as a ready-made binary answers --version.
func writeVersionScript(t *testing.T, dir, name, out string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("fixture binaries are shell scripts")
	}
	path := filepath.Join(dir, name)
	script := "#!/bin/sh\ncat <<'END'\n" + out + "\nEND\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// versionOutput is what each program prints for its version, in its own
// words.
func versionOutput(name, version string) string {
	switch name {
	case "etcd":
		return "etcd Version: " + strings.TrimPrefix(version, "v") + "\nGit SHA: x\nGo Version: go1.26"
	case "kwok":
		return "kwok version " + version + " go1.26.8 (linux/amd64)"
	case "kubectl":
		return "Client Version: " + version + "\nKustomize Version: v5.8.1"
	}
	return "Kubernetes " + version
}

// assetsDir makes an assets directory holding the named programs at their
// pinned versions, as setup-envtest would.
func makeAssets(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	pinned := pinnedVersions(buildGoMod)
	for _, p := range (Options{Full: true, Kubectl: true}).programs() {
		if slices.Contains(names, p.name) {
			writeVersionScript(t, dir, p.name, versionOutput(p.name, pinned[p.module]))
		}
	}
	return dir
}

// recordingBuilder stands in for the go build: it records what it was
// asked to build and returns a Set in dir without building.
type recordingBuilder struct {
	calls int
	asked []string
}

func (r *recordingBuilder) build(_ context.Context, dir string, need []program, _ io.Writer) (*Set, error) {
	r.calls++
	for _, p := range need {
		r.asked = append(r.asked, p.name)
	}
	return &Set{Dir: dir, Versions: pinnedVersions(buildGoMod)}, nil
}

func noBuild(t *testing.T) func(context.Context, string, []program, io.Writer) (*Set, error) {
	return func(_ context.Context, _ string, need []program, _ io.Writer) (*Set, error) {
		t.Errorf("a build of %v was started though the assets directory has every program", need)
		return nil, context.Canceled
	}
}

// noSources sets $KUBEBUILDER_ASSETS to assets and turns downloads off,
// so a test sees only the sources it sets up.
func noSources(t *testing.T, assets string) {
	t.Setenv(AssetsEnv, assets)
	t.Setenv(DownloadEnv, "off")
}

func TestPinnedVersionsReadTheBuildModule(t *testing.T) {
	v := pinnedVersions(buildGoMod)
	for _, m := range []string{kubernetesModule, etcdModule, kwokModule} {
		if !strings.HasPrefix(v[m], "v") || !strings.Contains(string(buildGoMod), m+" "+v[m]) {
			t.Errorf("pinned %s = %q, not a version the build module requires", m, v[m])
		}
	}
}

func TestProgramVersionReadsEachProgramsWords(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"etcd", "kube-apiserver", "kwok", "kubectl"} {
		path := writeVersionScript(t, dir, name, versionOutput(name, "v9.8.7"))
		got, err := programVersion(t.Context(), name, path)
		if err != nil || got != "v9.8.7" {
			t.Errorf("%s: version %q, %v; want v9.8.7", name, got, err)
		}
	}
	path := writeVersionScript(t, dir, "broken", "no version here")
	if _, err := programVersion(t.Context(), "broken", path); err == nil || !strings.Contains(err.Error(), "no version") {
		t.Errorf("a program printing no version: err = %v", err)
	}
}

func TestBinaryAssetsDirectoryProvidesAPIServerOnly(t *testing.T) {
	noSources(t, "")
	dir := makeAssets(t, "etcd", "kube-apiserver")
	var log bytes.Buffer
	b, err := Ensure(t.Context(), Options{BinaryAssetsDirectory: dir, CacheDir: t.TempDir(), Log: &log, build: noBuild(t)})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"etcd", "kube-apiserver"} {
		if got := b.Path(name); got != filepath.Join(dir, name) {
			t.Errorf("Path(%s) = %s, want it in %s", name, got, dir)
		}
	}
	if got, want := b.KubernetesVersion(), pinnedVersions(buildGoMod)[kubernetesModule]; got != want {
		t.Errorf("KubernetesVersion = %q, want %q", got, want)
	}
	if !strings.Contains(log.String(), "using etcd, kube-apiserver from "+dir+" (Options.BinaryAssetsDirectory)") {
		t.Errorf("the log does not say where the binaries come from:\n%s", log.String())
	}
}

func TestKubebuilderAssetsIsHonoured(t *testing.T) {
	dir := makeAssets(t, "etcd", "kube-apiserver", "kubectl")
	noSources(t, dir)
	var log bytes.Buffer
	b, err := Ensure(t.Context(), Options{Kubectl: true, CacheDir: t.TempDir(), Log: &log, build: noBuild(t)})
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Path("kubectl"); got != filepath.Join(dir, "kubectl") {
		t.Errorf("Path(kubectl) = %s", got)
	}
	if !strings.Contains(log.String(), "($"+AssetsEnv+")") {
		t.Errorf("the log does not name %s:\n%s", AssetsEnv, log.String())
	}
}

// Options.BinaryAssetsDirectory wins over $KUBEBUILDER_ASSETS, as in
// controller-runtime.
func TestBinaryAssetsDirectoryOverridesKubebuilderAssets(t *testing.T) {
	env := makeAssets(t, "etcd", "kube-apiserver")
	noSources(t, env)
	dir := makeAssets(t, "etcd", "kube-apiserver")
	var log bytes.Buffer
	b, err := Ensure(t.Context(), Options{BinaryAssetsDirectory: dir, CacheDir: t.TempDir(), Log: &log, build: noBuild(t)})
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Path("kube-apiserver"); got != filepath.Join(dir, "kube-apiserver") {
		t.Errorf("Path(kube-apiserver) = %s, want Options.BinaryAssetsDirectory's, not $%s's", got, AssetsEnv)
	}
	if strings.Contains(log.String(), env) {
		t.Errorf("the log names $%s's directory:\n%s", AssetsEnv, log.String())
	}
}

// A Full environment takes what the assets directory has (setup-envtest
// installs etcd, kube-apiserver and kubectl) and builds the rest.
func TestMissingAssetsAreBuilt(t *testing.T) {
	noSources(t, "")
	dir := makeAssets(t, "etcd", "kube-apiserver", "kubectl")
	cache := t.TempDir()
	var log bytes.Buffer
	var rb recordingBuilder
	b, err := Ensure(t.Context(), Options{Full: true, BinaryAssetsDirectory: dir, CacheDir: cache, Log: &log, build: rb.build})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(rb.asked)
	if want := []string{"kube-controller-manager", "kube-scheduler", "kwok"}; rb.calls != 1 || !slices.Equal(rb.asked, want) {
		t.Errorf("built %v in %d builds, want %v in one", rb.asked, rb.calls, want)
	}
	if got := b.Path("etcd"); got != filepath.Join(dir, "etcd") {
		t.Errorf("Path(etcd) = %s, want the assets directory's", got)
	}
	if got := b.Path("kwok"); !strings.HasPrefix(got, cache) {
		t.Errorf("Path(kwok) = %s, want it in the cache %s", got, cache)
	}
	if got := b.StagesDir(); !strings.HasPrefix(got, cache) {
		t.Errorf("StagesDir = %s, want it in the cache", got)
	}
	if !strings.Contains(log.String(), "kwok is not in "+dir) {
		t.Errorf("the log does not say kwok is missing:\n%s", log.String())
	}
}

func TestKwokWithoutStagesIsBuilt(t *testing.T) {
	noSources(t, "")
	dir := makeAssets(t, "etcd", "kube-apiserver", "kube-scheduler", "kube-controller-manager", "kwok")
	var log bytes.Buffer
	var rb recordingBuilder
	if _, err := Ensure(t.Context(), Options{Full: true, BinaryAssetsDirectory: dir, CacheDir: t.TempDir(), Log: &log, build: rb.build}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rb.asked, []string{"kwok"}) {
		t.Errorf("built %v, want kwok alone", rb.asked)
	}
	if err := os.Mkdir(filepath.Join(dir, "stages"), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := Ensure(t.Context(), Options{Full: true, BinaryAssetsDirectory: dir, CacheDir: t.TempDir(), Log: &log, build: noBuild(t)})
	if err != nil {
		t.Fatal(err)
	}
	if b.Path("kwok") != filepath.Join(dir, "kwok") || b.StagesDir() != filepath.Join(dir, "stages") {
		t.Errorf("kwok %s, stages %s; want both from %s", b.Path("kwok"), b.StagesDir(), dir)
	}
}

func TestVersionMismatch(t *testing.T) {
	noSources(t, "")
	dir := makeAssets(t, "etcd")
	writeVersionScript(t, dir, "kube-apiserver", "Kubernetes v1.30.0")
	pinned := pinnedVersions(buildGoMod)[kubernetesModule]

	t.Run("UseWithWarning", func(t *testing.T) {
		var log bytes.Buffer
		b, err := Ensure(t.Context(), Options{BinaryAssetsDirectory: dir, CacheDir: t.TempDir(), Log: &log, build: noBuild(t)})
		if err != nil {
			t.Fatal(err)
		}
		if b.Path("kube-apiserver") != filepath.Join(dir, "kube-apiserver") || b.KubernetesVersion() != "v1.30.0" {
			t.Errorf("kube-apiserver %s at %s, want the assets directory's v1.30.0", b.Path("kube-apiserver"), b.KubernetesVersion())
		}
		if !strings.Contains(log.String(), "warning: kube-apiserver in "+dir+" is v1.30.0, not the pinned "+pinned) {
			t.Errorf("no warning in the log:\n%s", log.String())
		}
	})
	t.Run("BuildPinned", func(t *testing.T) {
		var log bytes.Buffer
		var rb recordingBuilder
		b, err := Ensure(t.Context(), Options{BinaryAssetsDirectory: dir, VersionMismatch: BuildPinned, CacheDir: t.TempDir(), Log: &log, build: rb.build})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(rb.asked, []string{"kube-apiserver"}) {
			t.Errorf("built %v, want kube-apiserver alone", rb.asked)
		}
		if b.Path("etcd") != filepath.Join(dir, "etcd") || b.KubernetesVersion() != pinned {
			t.Errorf("etcd %s, Kubernetes %s; want the assets' etcd and the pinned %s", b.Path("etcd"), b.KubernetesVersion(), pinned)
		}
	})
}

func TestUnrunnableAssetIsBuilt(t *testing.T) {
	noSources(t, "")
	dir := makeAssets(t, "etcd")
	if err := os.WriteFile(filepath.Join(dir, "kube-apiserver"), []byte("#!/bin/sh\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	var rb recordingBuilder
	if _, err := Ensure(t.Context(), Options{BinaryAssetsDirectory: dir, CacheDir: t.TempDir(), Log: &log, build: rb.build}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rb.asked, []string{"kube-apiserver"}) || !strings.Contains(log.String(), "kube-apiserver is not usable") {
		t.Errorf("built %v; log:\n%s", rb.asked, log.String())
	}
}

// Without an assets directory everything the options need is built, and
// the log says how to avoid it. kubectl only when asked for.
func TestNoAssetsBuildsWhatTheOptionsNeed(t *testing.T) {
	noSources(t, "")
	for _, tc := range []struct {
		opts Options
		want []string
	}{
		{Options{}, []string{"etcd", "kube-apiserver"}},
		{Options{Kubectl: true}, []string{"etcd", "kube-apiserver", "kubectl"}},
		{Options{Full: true}, []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"}},
	} {
		var log bytes.Buffer
		var rb recordingBuilder
		tc.opts.CacheDir, tc.opts.Log, tc.opts.build = t.TempDir(), &log, rb.build
		if _, err := Ensure(t.Context(), tc.opts); err != nil {
			t.Fatal(err)
		}
		slices.Sort(rb.asked)
		if !slices.Equal(rb.asked, tc.want) {
			t.Errorf("%+v: built %v, want %v", tc.opts, rb.asked, tc.want)
		}
		if !strings.Contains(log.String(), "(set "+AssetsEnv) {
			t.Errorf("the log does not say how to use ready-made binaries:\n%s", log.String())
		}
	}
}
