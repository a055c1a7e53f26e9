package envtest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// One go build makes every program, each under its own name, including a
// main package at a module root with a major version suffix (as etcd's).
func TestBuildProgramsInOneGoBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	gocmd, err := goCommand()
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
	missing := []program{
		{"my-server", "example.com/server/v3", "example.com/server/v3"},
		{"my-tool", "example.com/server/v3", "example.com/server/v3/cmd/tool"},
	}
	var log bytes.Buffer
	if err := buildPrograms(t.Context(), gocmd, src, dir, missing, "v1.37.2", time.Now(), &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	for name, want := range map[string]string{"my-server": "server", "my-tool": "tool"} {
		out, err := exec.Command(filepath.Join(dir, exeName(name))).Output()
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
