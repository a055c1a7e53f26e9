//go:build unix

package envtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

func TestRemoveLeftoversRemovesOnlyDeadOwnersDirs(t *testing.T) {
	tmp := t.TempDir()
	// A pid that surely exited: a finished, reaped child.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := cmd.Process.Pid
	dirs := map[string]string{
		"dead owner": strconv.Itoa(dead),
		"live owner": strconv.Itoa(os.Getppid()),
		"us":         strconv.Itoa(os.Getpid()),
		"unreadable": "not a pid",
		"no owner":   "",
	}
	paths := map[string]string{}
	for name, owner := range dirs {
		dir, err := os.MkdirTemp(tmp, instanceDirPrefix)
		if err != nil {
			t.Fatal(err)
		}
		if owner != "" {
			if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(owner+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		paths[name] = dir
	}
	other := filepath.Join(tmp, "someone-elses")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}

	removeLeftovers(tmp)

	for name, dir := range paths {
		_, err := os.Stat(dir)
		if gone := os.IsNotExist(err); gone != (name == "dead owner") {
			t.Errorf("%s: removed = %v, want %v", name, gone, name == "dead owner")
		}
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("a directory not made by Start was touched: %v", err)
	}
}
