package main

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"time"

	"github.com/ctrlkit/ctrlkit/internal/childproc"
)

// startLoad starts the controlled CPU load of -load: one shell busy loop
// per core, a process apart from every process under test, as a compiler
// sharing the node would be. stop ends them.
func startLoad() (stop func() error, err error) {
	var loops []*childproc.Process
	stop = func() error {
		var errs []error
		for _, p := range loops {
			if _, err := p.Stop(5 * time.Second); err != nil {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	}
	for range runtime.NumCPU() {
		p, err := childproc.Start(exec.Command("sh", "-c", "while :; do :; done"))
		if err != nil {
			return nil, errors.Join(fmt.Errorf("start a busy loop: %w", err), stop())
		}
		loops = append(loops, p)
	}
	return stop, nil
}
