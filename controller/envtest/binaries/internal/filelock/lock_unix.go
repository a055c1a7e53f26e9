//go:build unix

package filelock

import (
	"context"
	"errors"
	"os"
	"syscall"

	"k8s.io/apimachinery/pkg/util/wait"
)

// Lock takes an exclusive advisory lock on path, creating the file if
// needed. It calls waiting once if another process holds the lock, and gives
// up when ctx ends. The kernel drops the lock if the process dies, so a build
// killed halfway never blocks the next one.
func Lock(ctx context.Context, path string, waiting func()) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	told := false
	err = wait.PollUntilContextCancel(ctx, pollInterval, true, func(context.Context) (bool, error) {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return true, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			return false, err
		}
		if !told && waiting != nil {
			waiting()
			told = true
		}
		return false, nil
	})
	if err != nil {
		_ = f.Close()
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}
