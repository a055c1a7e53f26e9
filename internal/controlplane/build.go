package controlplane

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
	"runtime"
	"strings"
	"sync"
	"time"
)

// Binaries is a built, cached set of control plane programs.
type Binaries struct {
	// Dir holds the programs and the kwok stages.
	Dir string
	// Versions maps each pinned module (k8s.io/kubernetes, go.etcd.io/etcd/server/v3,
	// sigs.k8s.io/kwok) to the version the programs were built from.
	Versions map[string]string
	// BuildTime is how long the build took.
	BuildTime time.Duration
}

// Path returns the path of one program: "etcd", "kube-apiserver",
// "kube-controller-manager", "kube-scheduler", "kubectl" or "kwok".
func (b *Binaries) Path(name string) string { return filepath.Join(b.Dir, exeName(name)) }

// StagesDir holds the kwok stage files, copied from the kwok module.
func (b *Binaries) StagesDir() string { return filepath.Join(b.Dir, "stages") }

// KubernetesVersion is the version the Kubernetes programs report.
func (b *Binaries) KubernetesVersion() string { return b.Versions[kubernetesModule] }

const (
	kubernetesModule = "k8s.io/kubernetes"
	etcdModule       = "go.etcd.io/etcd/server/v3"
	kwokModule       = "sigs.k8s.io/kwok"
)

// program is one binary to build: its name and its main package.
type program struct{ name, pkg string }

// programs in build order: the small ones first, so a broken toolchain shows
// quickly, and kube-apiserver, the largest, last.
var programs = []program{
	{"kwok", kwokModule + "/cmd/kwok"},
	{"etcd", etcdModule},
	{"kubectl", kubernetesModule + "/cmd/kubectl"},
	{"kube-scheduler", kubernetesModule + "/cmd/kube-scheduler"},
	{"kube-controller-manager", kubernetesModule + "/cmd/kube-controller-manager"},
	{"kube-apiserver", kubernetesModule + "/cmd/kube-apiserver"},
}

// manifestName is written last into a cache directory: its presence means
// the directory is complete.
const manifestName = "manifest.json"

// CacheDir returns the directory under which built binaries are cached.
func CacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache directory: %w", err)
	}
	return filepath.Join(base, "ctrlkit", "bin"), nil
}

// EnsureBinaries returns the cached binaries for the pinned versions,
// building them first if they are missing. Progress goes to log (nil
// discards it). Concurrent callers, in this process or others, wait for a
// single build.
func EnsureBinaries(ctx context.Context, log io.Writer) (*Binaries, error) {
	if log == nil {
		log = io.Discard
	}
	src, err := findSourceDir()
	if err != nil {
		return nil, err
	}
	key, err := cacheKey(src)
	if err != nil {
		return nil, err
	}
	base, err := CacheDir()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(base, key)
	if b, err := loadBinaries(dir); err == nil {
		return b, nil
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return nil, err
	}
	unlock, err := lockFile(ctx, dir+".lock", func() {
		fmt.Fprintf(log, "controlplane: another process is building the binaries; waiting for lock %s\n", dir+".lock")
	})
	if err != nil {
		return nil, fmt.Errorf("lock the binary cache: %w", err)
	}
	defer unlock()
	if b, err := loadBinaries(dir); err == nil {
		return b, nil // built by whoever held the lock
	}
	return build(ctx, src, base, dir, log)
}

// loadBinaries reads a complete cache directory.
func loadBinaries(dir string) (*Binaries, error) {
	data, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		return nil, err
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, manifestName), err)
	}
	b := &Binaries{Dir: dir, Versions: m.Versions, BuildTime: time.Duration(m.BuildSeconds * float64(time.Second))}
	for _, p := range programs {
		if _, err := os.Stat(b.Path(p.name)); err != nil {
			return nil, err
		}
	}
	return b, nil
}

type manifest struct {
	Versions     map[string]string `json:"versions"`
	GoVersion    string            `json:"goVersion"`
	BuildSeconds float64           `json:"buildSeconds"`
	Built        time.Time         `json:"built"`
}

// build compiles every program into a fresh directory next to dir and renames
// it into place, so a half-finished build is never mistaken for a cache hit.
func build(ctx context.Context, src, base, dir string, log io.Writer) (*Binaries, error) {
	start := time.Now()
	tmp, err := os.MkdirTemp(base, filepath.Base(dir)+".building-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp) // after a successful rename this is a no-op

	gocmd, err := goCommand()
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "controlplane: building the local control plane into %s\n", dir)
	fmt.Fprintf(log, "controlplane: from %s; the first build takes several minutes, later runs reuse it\n", src)

	mods, err := moduleInfo(ctx, gocmd, src, kubernetesModule, etcdModule, kwokModule)
	if err != nil {
		return nil, err
	}
	versions := map[string]string{}
	for path, m := range mods {
		versions[path] = m.Version
	}
	if err := copyStages(mods[kwokModule].Dir, filepath.Join(tmp, "stages")); err != nil {
		return nil, fmt.Errorf("copy kwok stages: %w", err)
	}

	ldflags := versionLDFlags(versions[kubernetesModule])
	for i, p := range programs {
		t0 := time.Now()
		fmt.Fprintf(log, "controlplane: [%d/%d] building %s (%s)\n", i+1, len(programs), p.name, p.pkg)
		args := []string{"build", "-trimpath", "-ldflags", ldflags, "-o", filepath.Join(tmp, exeName(p.name)), p.pkg}
		if err := runGo(ctx, gocmd, src, args, log, func(elapsed time.Duration) {
			fmt.Fprintf(log, "controlplane:        still building %s: %s\n", p.name, elapsed.Round(time.Second))
		}); err != nil {
			return nil, fmt.Errorf("build %s: %w", p.name, err)
		}
		fmt.Fprintf(log, "controlplane: [%d/%d] built %s in %s (total %s)\n", i+1, len(programs), p.name,
			time.Since(t0).Round(time.Second), time.Since(start).Round(time.Second))
	}

	m := manifest{Versions: versions, GoVersion: runtime.Version(), BuildSeconds: time.Since(start).Seconds(), Built: time.Now().UTC()}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tmp, manifestName), data, 0o644); err != nil {
		return nil, err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, err
	}
	// A leftover incomplete dir (no manifest) would block the rename.
	_ = os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "controlplane: build finished in %s\n", time.Since(start).Round(time.Second))
	return loadBinaries(dir)
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
// so a fresh machine shows what it fetches, calling tick every 30 seconds
// while it runs, and returning the end of its output on failure.
func runGo(ctx context.Context, gocmd, src string, args []string, log io.Writer, tick func(time.Duration)) error {
	cmd := exec.CommandContext(ctx, gocmd, args...)
	cmd.Dir = src
	cmd.Env = goEnv()
	cmd.SysProcAttr = childProcAttr()
	// Cancelling kills the compilers go started too, not only go itself.
	cmd.Cancel = func() error { return signalGroup(cmd.Process, true) }
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
				fmt.Fprintf(log, "controlplane:        %s\n", line)
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
	ticker := time.NewTicker(30 * time.Second)
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

func exeName(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}
