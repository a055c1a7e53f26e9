package gobuild

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// One go build makes every program, each under its own name, including a
// main package at a module root with a major version suffix (as etcd's).
func TestBuildProgramsInOneGoBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	gocmd, err := Command()
	if err != nil {
		t.Skip(err)
	}
	src, dir := t.TempDir(), t.TempDir()
	files := map[string]string{
		"go.mod":           "module example.com/server/v3\n\ngo 1.22\n",
		"main.go":          "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"server\") }\n",
		"cmd/tool/main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"tool\") }\n",
	}
	for name, body := range files {
		path := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	progs := []Program{
		{"my-server", "example.com/server/v3"},
		{"my-tool", "example.com/server/v3/cmd/tool"},
	}
	var log bytes.Buffer
	if err := Build(t.Context(), gocmd, src, dir, progs, VersionLDFlags("v1.37.2"), &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	for name, want := range map[string]string{"my-server": "server", "my-tool": "tool"} {
		out, err := exec.Command(filepath.Join(dir, ExeName(name))).Output()
		if err != nil || strings.TrimSpace(string(out)) != want {
			t.Errorf("%s printed %q, %v; want %q", name, out, err, want)
		}
	}
	if left := leftovers(t, dir); len(left) > 0 {
		t.Errorf("temporary files left in %s: %v", dir, left)
	}
	for _, want := range []string{"[1/2] built", "[2/2] built"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, log.String())
		}
	}
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

func TestOutName(t *testing.T) {
	for pkg, want := range map[string]string{
		"go.etcd.io/etcd/server/v3":            "server",
		"k8s.io/kubernetes/cmd/kube-apiserver": "kube-apiserver",
		"sigs.k8s.io/kwok/cmd/kwok":            "kwok",
	} {
		if got := OutName(pkg); got != ExeName(want) {
			t.Errorf("OutName(%s) = %s, want %s", pkg, got, want)
		}
	}
}

// go build -v names each package it compiles on a line of its own; the
// progress counts those and nothing else.
func TestIsPackageLine(t *testing.T) {
	for line, want := range map[string]bool{
		"k8s.io/apimachinery/pkg/util/sets":      true,
		"go: downloading k8s.io/api v0.37.2":     false,
		"# k8s.io/kubernetes/cmd/kube-apiserver": false,
		"./main.go:3:2: undefined: x":            false,
		"":                                       false,
	} {
		if got := isPackageLine(line); got != want {
			t.Errorf("isPackageLine(%q) = %v, want %v", line, got, want)
		}
	}
}
