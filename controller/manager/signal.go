package manager

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// ErrSignal is the cancellation cause of the context from
// SetupSignalHandler; context.Cause reports it wrapped with the signal name.
var ErrSignal = errors.New("received termination signal")

var (
	signalOnce sync.Once
	signalCtx  context.Context
)

// SetupSignalHandler returns a context that is cancelled on the first
// SIGINT or SIGTERM; a second signal exits the process with status 1, for
// when a graceful shutdown hangs. The handler lives as long as the process;
// calling it again returns the same context.
func SetupSignalHandler() context.Context {
	signalOnce.Do(func() {
		signalCtx, _ = notifyContext(context.Background(), func() { os.Exit(1) }, os.Interrupt, syscall.SIGTERM)
	})
	return signalCtx
}

// notifyContext is SetupSignalHandler's machinery with the exit and the
// signals injectable, and a stop function that removes the handler.
func notifyContext(parent context.Context, exit func(), sigs ...os.Signal) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, sigs...)
	stopped := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case sig := <-ch:
			cancel(fmt.Errorf("%w: %s", ErrSignal, sig))
		case <-stopped:
			return
		}
		select {
		case <-ch:
			exit()
		case <-stopped:
		}
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			signal.Stop(ch)
			close(stopped)
			<-done
			cancel(context.Canceled)
		})
	}
	return ctx, stop
}
