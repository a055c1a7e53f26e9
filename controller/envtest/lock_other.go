//go:build !unix

package envtest

import (
	"context"
	"errors"
	"os"
	"time"
)

// lockFile takes an exclusive lock by creating path exclusively. Unlike the
// flock version, a process that dies holding it leaves the file behind; the
// error names the file to delete.
func lockFile(ctx context.Context, path string, waiting func()) (unlock func(), err error) {
	told := false
	deadline := time.Now().Add(30 * time.Minute)
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			_ = f.Close()
			return func() { _ = os.Remove(path) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		if time.Now().After(deadline) {
			return nil, errors.New("lock " + path + " held for 30 minutes; delete it if no build is running")
		}
		if !told && waiting != nil {
			waiting()
			told = true
		}
		select {
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case <-time.After(250 * time.Millisecond):
		}
	}
}
