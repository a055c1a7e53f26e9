//go:build unix

package envtest

import (
	"strings"
	"testing"
	"time"
)

// A component that exits early is reported with the end of its log, which
// usually says why.
func TestExitErrorIncludesLogTail(t *testing.T) {
	p, err := startProcess(t.TempDir(), "failing", "/bin/sh", []string{"-c", "echo listen tcp: address already in use; exit 3"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	msg := p.exitError().Error()
	for _, want := range []string{"failing exited", "exit status 3", "address already in use"} {
		if !strings.Contains(msg, want) {
			t.Errorf("exit error %q lacks %q", msg, want)
		}
	}
	if err := p.stop(time.Second); err != nil {
		t.Errorf("stop of an exited process: %v", err)
	}
}
