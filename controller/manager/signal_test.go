package manager

import (
	"context"
	"errors"
	"os"
	"syscall"
	"testing"
)

// The first signal cancels the context with ErrSignal as the cause; the
// second calls exit.
func TestSignalContext(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			exited := make(chan struct{})
			ctx, stop := notifyContext(context.Background(), func() { close(exited) }, os.Interrupt, syscall.SIGTERM)
			defer stop()
			if err := syscall.Kill(os.Getpid(), sig); err != nil {
				t.Fatal(err)
			}
			<-ctx.Done()
			if cause := context.Cause(ctx); !errors.Is(cause, ErrSignal) {
				t.Errorf("cause = %v, want ErrSignal", cause)
			}
			select {
			case <-exited:
				t.Fatal("exit after the first signal")
			default:
			}
			if err := syscall.Kill(os.Getpid(), sig); err != nil {
				t.Fatal(err)
			}
			<-exited
		})
	}
}

// stop removes the handler without cancelling for a signal, and its
// goroutine ends (goleak checks).
func TestSignalContextStop(t *testing.T) {
	ctx, stop := notifyContext(context.Background(), func() { t.Error("exit called") }, syscall.SIGTERM)
	stop()
	stop() // idempotent
	if cause := context.Cause(ctx); errors.Is(cause, ErrSignal) {
		t.Errorf("cause = %v after stop, want no signal", cause)
	}
}
