//go:build unix

package filelock

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

func TestLockFileExcludesAndReleases(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := Lock(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}

	// flock locks belong to the open file, so a second open in this process
	// contends like another process would.
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	waited := false
	if _, err := Lock(ctx, path, func() { waited = true }); err == nil {
		t.Fatal("second lock succeeded while the first was held")
	}
	if !waited {
		t.Error("waiting callback not called while the lock was held")
	}

	unlock()
	unlock2, err := Lock(t.Context(), path, nil)
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	unlock2()
}
