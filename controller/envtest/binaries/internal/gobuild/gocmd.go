package gobuild

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
)

// Command finds the go command: on PATH (go test puts its own toolchain's
// bin first there), else in $GOROOT/bin. The GOROOT compiled into this binary
// is not asked: it names the machine that built it, not this one.
func Command() (string, error) {
	if p, err := exec.LookPath("go"); err == nil {
		return p, nil
	}
	if root := os.Getenv("GOROOT"); root != "" {
		p := filepath.Join(root, "bin", ExeName("go"))
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", errors.New("the go command is needed to build the control plane, and is neither on PATH nor in $GOROOT/bin")
}

// env is the environment of every go command run: static binaries, the
// build module alone (no workspace), and go.sum as committed.
func env() []string {
	return append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=-mod=readonly")
}

// Module is what go mod download -json says of a module.
type Module struct {
	Path, Version, Dir, Error string
}

// Modules downloads the named modules at the versions the module in src
// selects and returns their versions and directories.
func Modules(ctx context.Context, gocmd, src string, paths ...string) (map[string]Module, error) {
	cmd := exec.CommandContext(ctx, gocmd, append([]string{"mod", "download", "-json"}, paths...)...)
	cmd.Dir = src
	cmd.Env = env()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go mod download: %w\n%s%s", err, stderr.String(), out)
	}
	mods := map[string]Module{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var m Module
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

// VersionLDFlags stamps the Kubernetes version into the binaries; without
// it they report v0.0.0-master and kubectl cannot parse the server version.
func VersionLDFlags(version string) string {
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

// OutName is the file go build -o dir/ writes for a main package: its
// last path element, or the one before a major version suffix (etcd's
// go.etcd.io/etcd/server/v3 becomes "server").
func OutName(pkg string) string {
	elems := strings.Split(pkg, "/")
	name := elems[len(elems)-1]
	if len(elems) > 1 && majorSuffix.MatchString(name) {
		name = elems[len(elems)-2]
	}
	return ExeName(name)
}

var majorSuffix = regexp.MustCompile(`^v[2-9][0-9]*$`)

// ExeName is the file name of the program name on this system.
func ExeName(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}
