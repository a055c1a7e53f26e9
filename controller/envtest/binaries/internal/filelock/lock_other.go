//go:build !unix

package filelock

import (
	"context"
	"errors"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// Lock takes an exclusive lock by creating path exclusively. Unlike the
// flock version, a process that dies holding it leaves the file behind; the
// error names the file to delete.
func Lock(ctx context.Context, path string, waiting func()) (unlock func(), err error) {
	told := false
	deadline := time.Now().Add(30 * time.Minute)
	err = wait.PollUntilContextCancel(ctx, pollInterval, true, func(context.Context) (bool, error) {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			_ = f.Close()
			return true, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return false, err
		}
		if time.Now().After(deadline) {
			return false, errors.New("lock " + path + " held for 30 minutes; delete it if no build is running")
		}
		if !told && waiting != nil {
			waiting()
			told = true
		}
		return false, nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, err
	}
	return func() { _ = os.Remove(path) }, nil
}
