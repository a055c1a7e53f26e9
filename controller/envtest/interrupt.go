package envtest

import (
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// interrupts stops the environments of the test helpers when the test
// binary is interrupted. go test's own timeout panics instead; then, as when
// the binary is killed, the components die with it (see internal/childproc) and
// the next Start removes the leftover directory.
var interrupts struct {
	mu   sync.Mutex
	envs map[*Environment]bool
	ch   chan os.Signal // non-nil while envs is not empty
}

// stopOnInterrupt registers env to be stopped on SIGINT or SIGTERM, after
// which the signal is raised again with its default action, ending the
// process as it would have without us. release undoes the registration.
func stopOnInterrupt(env *Environment) (release func()) {
	interrupts.mu.Lock()
	defer interrupts.mu.Unlock()
	if interrupts.ch == nil {
		interrupts.envs = map[*Environment]bool{}
		interrupts.ch = make(chan os.Signal, 1)
		signal.Notify(interrupts.ch, os.Interrupt, syscall.SIGTERM)
		go stopAllOnSignal(interrupts.ch)
	}
	interrupts.envs[env] = true
	return func() {
		interrupts.mu.Lock()
		defer interrupts.mu.Unlock()
		delete(interrupts.envs, env)
		if len(interrupts.envs) == 0 && interrupts.ch != nil {
			signal.Stop(interrupts.ch)
			close(interrupts.ch)
			interrupts.ch = nil
		}
	}
}

func stopAllOnSignal(ch chan os.Signal) {
	sig, ok := <-ch
	if !ok {
		return // released
	}
	interrupts.mu.Lock()
	signal.Stop(ch)
	for env := range interrupts.envs {
		if err := env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "envtest:", err)
		}
	}
	// Keep the lock: nothing may register again on the way out.
	signal.Reset(sig)
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Signal(sig)
	}
}
