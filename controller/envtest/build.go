package envtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/internal/childproc"
)

// Binaries is a set of built, cached control plane programs.
type Binaries struct {
	// Dir holds the programs and the kwok stages.
	Dir string
	// Versions maps each pinned module (k8s.io/kubernetes, go.etcd.io/etcd/server/v3,
	// sigs.k8s.io/kwok) whose programs are built to its version.
	Versions map[string]string
	// Paths maps a program's name to its path where it is not in Dir: a
	// program taken from an assets directory (Options.BinaryAssetsDirectory).
	Paths map[string]string
	// Stages, when set, is the kwok stage folder in place of Dir/stages.
	Stages string
}

// Path returns the path of one program: "etcd", "kube-apiserver",
// "kube-controller-manager", "kube-scheduler", "kubectl" or "kwok".
func (b *Binaries) Path(name string) string {
	if p, ok := b.Paths[name]; ok {
		return p
	}
	return filepath.Join(b.Dir, exeName(name))
}

// StagesDir holds the kwok stage files, copied from the kwok module.
func (b *Binaries) StagesDir() string {
	if b.Stages != "" {
		return b.Stages
	}
	return filepath.Join(b.Dir, "stages")
}

// KubernetesVersion is the version the Kubernetes programs report.
func (b *Binaries) KubernetesVersion() string { return b.Versions[kubernetesModule] }

const (
	kubernetesModule = "k8s.io/kubernetes"
	etcdModule       = "go.etcd.io/etcd/server/v3"
	kwokModule       = "sigs.k8s.io/kwok"
)

// program is one binary to build: its name, its module and its main package.
type program struct{ name, module, pkg string }

var (
	etcdProgram      = program{"etcd", etcdModule, etcdModule}
	apiserverProgram = program{"kube-apiserver", kubernetesModule, kubernetesModule + "/cmd/kube-apiserver"}
	kubectlProgram   = program{"kubectl", kubernetesModule, kubernetesModule + "/cmd/kubectl"}
	fullPrograms     = []program{
		{"kwok", kwokModule, kwokModule + "/cmd/kwok"},
		{"kube-scheduler", kubernetesModule, kubernetesModule + "/cmd/kube-scheduler"},
		{"kube-controller-manager", kubernetesModule, kubernetesModule + "/cmd/kube-controller-manager"},
	}
)

// programs lists what a mode runs: etcd and kube-apiserver, and in Full
// mode kwok, kube-scheduler and kube-controller-manager.
func (m Mode) programs() []program {
	if m == Full {
		return append([]program{etcdProgram, apiserverProgram}, fullPrograms...)
	}
	return []program{etcdProgram, apiserverProgram}
}

// programs is what the options need: the mode's programs, and kubectl
// when asked for.
func (o Options) programs() []program {
	ps := o.Mode.programs()
	if o.Kubectl {
		ps = append(ps, kubectlProgram)
	}
	return ps
}

// manifestName is the file in a cache directory that records the versions
// of the modules whose programs it holds.
const manifestName = "manifest.json"

// CacheDirEnv names the environment variable that, when set, replaces
// os.UserCacheDir()/ctrlkit/bin as the binary cache (Options.CacheDir
// overrides both).
const CacheDirEnv = "CTRLKIT_ENVTEST_CACHE"

// CacheDir returns the directory under which built binaries are cached:
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

// EnsureBinaries returns the programs that opts needs (see Options.Mode and
// Options.Kubectl). Programs come first from the assets directory
// (Options.BinaryAssetsDirectory, else $KUBEBUILDER_ASSETS), each checked
// with --version against the pinned version (Options.VersionMismatch says
// what a different one does); then from the binary cache; then, unless
// downloads are off (Options.NoDownload, DownloadEnv), from official
// releases, each file's published digest checked before it is used or
// cached; and last the cache builds the missing ones with the go command
// from the embedded build module, all in one go build. The cache is
// opts.CacheDir (see CacheDir for the default). Where the programs come
// from, why a download failed, and a build's estimate and progress go to
// opts.Log. Concurrent callers, in this process or others, wait for a
// single build.
func EnsureBinaries(ctx context.Context, opts Options) (*Binaries, error) {
	log := opts.log()
	need := opts.programs()
	pinned := pinnedVersions(buildGoMod)
	found := assets{paths: map[string]string{}, versions: map[string]string{}}
	srcDir := ""
	if dir := opts.assetsDir(); dir != "" {
		var a assets
		a, need = findAssets(ctx, dir, need, pinned, opts.VersionMismatch, log)
		found.add(a)
		srcDir = dir
		if len(a.paths) > 0 {
			fmt.Fprintf(log, "envtest: using %s from %s (%s)\n", strings.Join(sortedNames(a.paths), ", "), dir, opts.assetsSource())
		}
	}
	if len(need) == 0 {
		return found.binaries(srcDir, nil), nil
	}
	base := opts.CacheDir
	if base == "" {
		var err error
		if base, err = CacheDir(); err != nil {
			return nil, err
		}
	}
	cacheDir := filepath.Join(base, cacheKey(buildGoMod, buildGoSum))
	if b, err := loadBinaries(cacheDir, need); err == nil {
		return found.binaries(srcDir, b), nil
	}
	if opts.downloadsOn() {
		var a assets
		var dl string
		a, dl, need = fromReleases(ctx, opts, base, pinned, need, log)
		found.add(a)
		if srcDir == "" {
			srcDir = dl
		}
		if len(need) == 0 {
			return found.binaries(srcDir, nil), nil
		}
	}
	b, err := cachedBinaries(ctx, opts, cacheDir, need, opts.assetsDir() == "")
	if err != nil {
		return nil, err
	}
	return found.binaries(srcDir, b), nil
}

func sortedNames(m map[string]string) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// cachedBinaries returns the programs of need from the binary cache dir,
// building the missing ones under a file lock. noAssets says that no
// assets directory was given, which the build's first line then suggests.
func cachedBinaries(ctx context.Context, opts Options, dir string, need []program, noAssets bool) (*Binaries, error) {
	log := opts.log()
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, err
	}
	unlock, err := lockFile(ctx, dir+".lock", func() {
		fmt.Fprintf(log, "envtest: another process is building the binaries; waiting for lock %s\n", dir+".lock")
	})
	if err != nil {
		return nil, fmt.Errorf("lock the binary cache: %w", err)
	}
	defer unlock()
	if b, err := loadBinaries(dir, need); err == nil {
		return b, nil // built by whoever held the lock
	}
	if noAssets {
		fmt.Fprintf(log, "envtest: no ready-made binaries for %s (set %s or Options.BinaryAssetsDirectory to a directory of them, as setup-envtest makes)\n", names(need), AssetsEnv)
	}
	return opts.builder()(ctx, dir, need, log)
}

// loadBinaries reads a cache directory that holds every program in need
// (and the kwok stages if kwok is among them).
func loadBinaries(dir string, need []program) (*Binaries, error) {
	m, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	b := &Binaries{Dir: dir, Versions: m.Versions}
	for _, p := range need {
		if _, err := os.Stat(b.Path(p.name)); err != nil {
			return nil, err
		}
		if b.Versions[p.module] == "" {
			return nil, fmt.Errorf("%s: no version of %s", filepath.Join(dir, manifestName), p.module)
		}
		if p.module == kwokModule {
			if _, err := os.Stat(b.StagesDir()); err != nil {
				return nil, err
			}
		}
	}
	return b, nil
}

type manifest struct {
	Versions  map[string]string `json:"versions"`
	GoVersion string            `json:"goVersion"`
	Built     time.Time         `json:"built"`
}

func readManifest(dir string) (manifest, error) {
	var m manifest
	data, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("%s: %w", filepath.Join(dir, manifestName), err)
	}
	return m, nil
}

// build compiles the programs of need that dir lacks. Each program (and the
// stage folder) is written under a temporary name and renamed into place, so
// a half-finished build is never mistaken for a cache hit, and the manifest
// is updated after the programs it describes exist.
func build(ctx context.Context, dir string, need []program, log io.Writer) (*Binaries, error) {
	start := time.Now()
	src := filepath.Join(dir, "buildmodule")
	if err := writeBuildModule(src); err != nil {
		return nil, err
	}
	old, _ := readManifest(dir) // none yet on a first build
	versions := map[string]string{}
	for path, v := range old.Versions {
		versions[path] = v
	}
	var missing []program
	var modules []string
	for _, p := range need {
		if _, err := os.Stat(filepath.Join(dir, exeName(p.name))); err != nil || versions[p.module] == "" {
			missing = append(missing, p)
		}
		if !slices.Contains(modules, p.module) {
			modules = append(modules, p.module)
		}
	}
	gocmd, err := goCommand()
	if err != nil {
		return nil, err
	}
	names := make([]string, len(missing))
	for i, p := range missing {
		names[i] = p.name
	}
	fmt.Fprintf(log, "envtest: building %s from the Go module proxy into %s, in one go build\n", strings.Join(names, ", "), dir)
	fmt.Fprintf(log, "envtest: %s; later runs reuse the build\n", buildEstimate(missing, runtime.NumCPU()))

	mods, err := moduleInfo(ctx, gocmd, src, modules...)
	if err != nil {
		return nil, err
	}
	for path, m := range mods {
		versions[path] = m.Version
	}
	if k, ok := mods[kwokModule]; ok {
		if _, err := os.Stat(filepath.Join(dir, "stages")); err != nil {
			tmp, err := os.MkdirTemp(dir, ".stages-")
			if err != nil {
				return nil, err
			}
			defer os.RemoveAll(tmp) // a no-op after the rename
			if err := copyStages(k.Dir, tmp); err != nil {
				return nil, fmt.Errorf("copy kwok stages: %w", err)
			}
			if err := os.Chmod(tmp, 0o755); err != nil {
				return nil, err
			}
			if err := os.Rename(tmp, filepath.Join(dir, "stages")); err != nil {
				return nil, err
			}
		}
	}

	if len(missing) > 0 {
		if err := buildPrograms(ctx, gocmd, src, dir, missing, versions[kubernetesModule], start, log); err != nil {
			return nil, err
		}
	}
	if err := writeManifest(dir, manifest{Versions: versions, GoVersion: runtime.Version(), Built: time.Now().UTC()}); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "envtest: build finished in %s\n", time.Since(start).Round(time.Second))
	return loadBinaries(dir, need)
}

// buildPrograms builds missing into dir in one go build run in src.
func buildPrograms(ctx context.Context, gocmd, src, dir string, missing []program, k8sVersion string, start time.Time, log io.Writer) error {
	names := make([]string, len(missing))
	pkgs := make([]string, len(missing))
	for i, p := range missing {
		names[i], pkgs[i] = p.name, p.pkg
	}
	// One go build for every program: the packages they share (client-go,
	// apimachinery, the API types, grpc, ...) compile once, and the go
	// command keeps every core busy across programs. The outputs go to a
	// temporary folder and are renamed into place once go build is done.
	out, err := os.MkdirTemp(dir, ".build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(out)
	args := append([]string{"build", "-trimpath", "-ldflags", versionLDFlags(k8sVersion), "-o", out + string(filepath.Separator)}, pkgs...)
	done := map[string]bool{}
	var lastTick time.Duration
	err = runGo(ctx, gocmd, src, args, log, func(elapsed time.Duration) {
		// A program's file appears in out when its link is done.
		for _, p := range missing {
			if done[p.name] {
				continue
			}
			if _, err := os.Stat(filepath.Join(out, goOutName(p.pkg))); err == nil {
				done[p.name] = true
				fmt.Fprintf(log, "envtest: [%d/%d] built %s (%s)\n", len(done), len(missing), p.name, elapsed.Round(time.Second))
			}
		}
		if elapsed-lastTick >= 30*time.Second {
			lastTick = elapsed
			var left []string
			for _, p := range missing {
				if !done[p.name] {
					left = append(left, p.name)
				}
			}
			fmt.Fprintf(log, "envtest:        still building %s: %s\n", strings.Join(left, ", "), elapsed.Round(time.Second))
		}
	})
	if err != nil {
		return fmt.Errorf("build %s: %w", strings.Join(names, ", "), err)
	}
	for _, p := range missing {
		if !done[p.name] {
			fmt.Fprintf(log, "envtest: [%d/%d] built %s (%s)\n", len(done)+1, len(missing), p.name, time.Since(start).Round(time.Second))
			done[p.name] = true
		}
		if err := os.Rename(filepath.Join(out, goOutName(p.pkg)), filepath.Join(dir, exeName(p.name))); err != nil {
			return err
		}
	}

	return nil
}

// writeManifest replaces dir's manifest in one rename.
func writeManifest(dir string, m manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, "."+manifestName+".partial")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, manifestName))
}

// versionLDFlags stamps the Kubernetes version into the binaries; without it
// they report v0.0.0-master and kubectl cannot parse the server version.
func versionLDFlags(version string) string {
	major, minor, _ := strings.Cut(strings.TrimPrefix(version, "v"), ".")
	minor, _, _ = strings.Cut(minor, ".")
	flags := []string{"-s", "-w"}
	for _, pkg := range []string{"k8s.io/component-base/version", "k8s.io/client-go/pkg/version"} {
		flags = append(flags,
			"-X", pkg+".gitVersion="+version,
			"-X", pkg+".gitMajor="+major,
			"-X", pkg+".gitMinor="+minor,
			"-X", pkg+".gitTreeState=clean",
		)
	}
	return strings.Join(flags, " ")
}

// goCommand finds the go command: on PATH (go test puts its own toolchain's
// bin first there), else in $GOROOT/bin. The GOROOT compiled into this binary
// is not asked: it names the machine that built it, not this one.
func goCommand() (string, error) {
	if p, err := exec.LookPath("go"); err == nil {
		return p, nil
	}
	if root := os.Getenv("GOROOT"); root != "" {
		p := filepath.Join(root, "bin", exeName("go"))
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", errors.New("the go command is needed to build the control plane, and is neither on PATH nor in $GOROOT/bin")
}

// goEnv is the environment of every go command run: static binaries, the
// build module alone (no workspace), and go.sum as committed.
func goEnv() []string {
	return append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=-mod=readonly")
}

type moduleJSON struct {
	Path, Version, Dir, Error string
}

// moduleInfo downloads the named modules at the versions the build module
// selects and returns their versions and directories.
func moduleInfo(ctx context.Context, gocmd, src string, paths ...string) (map[string]moduleJSON, error) {
	cmd := exec.CommandContext(ctx, gocmd, append([]string{"mod", "download", "-json"}, paths...)...)
	cmd.Dir = src
	cmd.Env = goEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go mod download: %w\n%s%s", err, stderr.String(), out)
	}
	mods := map[string]moduleJSON{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var m moduleJSON
		if err := dec.Decode(&m); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go mod download -json: %w", err)
		}
		if m.Error != "" {
			return nil, fmt.Errorf("go mod download %s: %s", m.Path, m.Error)
		}
		mods[m.Path] = m
	}
	for _, p := range paths {
		if mods[p].Dir == "" {
			return nil, fmt.Errorf("go mod download did not report module %s", p)
		}
	}
	return mods, nil
}

// runGo runs the go command in src, copying "go: downloading" lines to log
// so a fresh machine shows what it fetches, calling tick every second
// while it runs, and returning the end of its output on failure.
func runGo(ctx context.Context, gocmd, src string, args []string, log io.Writer, tick func(time.Duration)) error {
	cmd := exec.CommandContext(ctx, gocmd, args...)
	cmd.Dir = src
	cmd.Env = goEnv()
	cmd.SysProcAttr = childproc.SysProcAttr()
	// Cancelling kills the compilers go started too, not only go itself.
	cmd.Cancel = func() error { return childproc.KillGroup(cmd.Process) }
	out, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	cmd.Stdout = cmd.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	var (
		mu   sync.Mutex
		tail []string
	)
	scanDone := make(chan struct{})
	go func() {
		defer close(scanDone)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "go: downloading") {
				fmt.Fprintf(log, "envtest:        %s\n", line)
			}
			mu.Lock()
			tail = append(tail, line)
			if len(tail) > 40 {
				tail = tail[1:]
			}
			mu.Unlock()
		}
	}()
	start := time.Now()
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	waited := make(chan error, 1)
	go func() {
		<-scanDone
		waited <- cmd.Wait()
	}()
	for {
		select {
		case err := <-waited:
			if ctx.Err() != nil {
				return fmt.Errorf("go %s: stopped: %w", args[0], context.Cause(ctx))
			}
			if err != nil {
				mu.Lock()
				defer mu.Unlock()
				return fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, strings.Join(tail, "\n"))
			}
			return nil
		case <-ticker.C:
			tick(time.Since(start))
		}
	}
}

// copyStages copies the kwok stage files that the control plane uses from the
// kwok module into dst, one folder per stage set.
func copyStages(kwokDir, dst string) error {
	for _, set := range stageSets {
		from := filepath.Join(kwokDir, "kustomize", "stage", filepath.FromSlash(set))
		to := filepath.Join(dst, filepath.FromSlash(set))
		if err := os.MkdirAll(to, 0o755); err != nil {
			return err
		}
		entries, err := os.ReadDir(from)
		if err != nil {
			return err
		}
		n := 0
		for _, e := range entries {
			if e.IsDir() || filepath.Ext(e.Name()) != ".yaml" || e.Name() == "kustomization.yaml" {
				continue
			}
			data, err := os.ReadFile(filepath.Join(from, e.Name()))
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(to, e.Name()), data, 0o644); err != nil {
				return err
			}
			n++
		}
		if n == 0 {
			return &fs.PathError{Op: "copy stages", Path: from, Err: errors.New("no stage files")}
		}
	}
	return nil
}

// stageSets are the kwok stage folders used: nodes become Ready at once and
// renew their lease like a kubelet; pods become Ready, complete, and go away
// when deleted.
var stageSets = []string{"node/fast", "node/heartbeat-with-lease", "pod/fast"}

// goOutName is the file go build -o dir/ writes for a main package: its
// last path element, or the one before a major version suffix (etcd's
// go.etcd.io/etcd/server/v3 becomes "server").
func goOutName(pkg string) string {
	elems := strings.Split(pkg, "/")
	name := elems[len(elems)-1]
	if len(elems) > 1 && majorSuffix.MatchString(name) {
		name = elems[len(elems)-2]
	}
	return exeName(name)
}

var majorSuffix = regexp.MustCompile(`^v[2-9][0-9]*$`)

func exeName(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}
