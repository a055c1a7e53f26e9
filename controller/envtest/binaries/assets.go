package binaries

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/ctrlkit/ctrlkit/controller/envtest/binaries/internal/gobuild"
)

// pinnedVersions reads the versions of the modules whose programs are built
// from the embedded build module's go.mod, without the go command.
func pinnedVersions(goMod []byte) map[string]string {
	want := map[string]bool{kubernetesModule: true, etcdModule: true, kwokModule: true}
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(goMod))
	for sc.Scan() {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(sc.Text()), "require "))
		if len(f) >= 2 && want[f[0]] && strings.HasPrefix(f[1], "v") {
			out[f[0]] = f[1]
		}
	}
	return out
}

// versionArgs are the arguments that make a program print its version.
func versionArgs(name string) []string {
	if name == "kubectl" {
		return []string{"version", "--client"}
	}
	return []string{"--version"}
}

var semverRE = regexp.MustCompile(`\bv?(\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?)`)

// programVersion runs path with the version arguments of name and returns
// the first version it prints, with a leading "v" ("etcd Version: 3.7.0"
// gives v3.7.0; "kwok version v0.8.0 go1.26.8" gives v0.8.0).
func programVersion(ctx context.Context, name, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, versionArgs(name)...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w: %s", path, strings.Join(versionArgs(name), " "), err, firstLine(out))
	}
	m := semverRE.FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("%s %s printed no version: %s", path, strings.Join(versionArgs(name), " "), firstLine(out))
	}
	return "v" + string(m[1]), nil
}

func firstLine(b []byte) string {
	line, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return line
}

// assets is what an assets directory provides.
type assets struct {
	paths    map[string]string // program name to path
	versions map[string]string // module to the version its programs report
	stages   string            // kwok stage folder, when kwok is used from there
}

// add takes the programs of b.
func (a *assets) add(b assets) {
	for n, p := range b.paths {
		a.paths[n] = p
	}
	for m, v := range b.versions {
		a.versions[m] = v
	}
	if b.stages != "" {
		a.stages = b.stages
	}
}

// binaries is the set of programs found, in dir or at their paths, with
// cached's for the others (nil when there are none).
func (a assets) binaries(dir string, cached *Set) *Set {
	b := &Set{Dir: dir, Versions: map[string]string{}, Paths: a.paths, Stages: a.stages}
	if cached != nil {
		b.Dir = cached.Dir
		for m, v := range cached.Versions {
			b.Versions[m] = v
		}
		if b.Stages == "" {
			b.Stages = cached.Stages
		}
	}
	for m, v := range a.versions {
		b.Versions[m] = v
	}
	return b
}

// findAssets looks for the programs of need in dir, checks each one's
// version against pinned, and returns those it will use and those still to
// provide. Every finding is logged in one line: where a program comes from,
// or why it is not taken from dir.
func findAssets(ctx context.Context, dir string, need []program, pinned map[string]string, policy VersionMismatch, log io.Writer) (assets, []program) {
	a := assets{paths: map[string]string{}, versions: map[string]string{}}
	var rest []program
	for _, p := range need {
		path := filepath.Join(dir, gobuild.ExeName(p.name))
		if _, err := os.Stat(path); err != nil {
			fmt.Fprintf(log, "envtest: %s is not in %s; it will be built\n", p.name, dir)
			rest = append(rest, p)
			continue
		}
		if p.module == kwokModule {
			// kwok needs its stage files, which setup-envtest does not install.
			st := filepath.Join(dir, "stages")
			if _, err := os.Stat(st); err != nil {
				fmt.Fprintf(log, "envtest: %s has kwok but no stages folder; kwok will be built\n", dir)
				rest = append(rest, p)
				continue
			}
			a.stages = st
		}
		v, err := programVersion(ctx, p.name, path)
		if err != nil {
			fmt.Fprintf(log, "envtest: %s is not usable (%v); it will be built\n", p.name, err)
			rest = append(rest, p)
			continue
		}
		if want := pinned[p.module]; v != want {
			if policy == BuildPinned {
				fmt.Fprintf(log, "envtest: %s in %s is %s, not the pinned %s; building the pinned one (Options.VersionMismatch)\n", p.name, dir, v, want)
				rest = append(rest, p)
				continue
			}
			fmt.Fprintf(log, "envtest: warning: %s in %s is %s, not the pinned %s; using it (Options.VersionMismatch = BuildPinned builds the pinned one)\n", p.name, dir, v, want)
		}
		a.paths[p.name] = path
		if _, ok := a.versions[p.module]; !ok || p.name == "kube-apiserver" {
			a.versions[p.module] = v // the API server's version is the cluster's
		}
	}
	return a, rest
}
