package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if len(os.Args) > 1 && os.Args[1] == replicaArg {
		if err := runReplica(ctx, os.Args[2:], os.Stdin, os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, "scalebench replica:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "scalebench:", err)
		os.Exit(1)
	}
}

// run benchmarks each chosen controller in turn, logging progress to log,
// and prints the table of those that finished to out. A controller that
// fails does not stop the others; its error is returned at the end.
func run(ctx context.Context, args []string, out, log io.Writer) error {
	cfg, err := parseFlags(args, log)
	if err != nil {
		return err
	}
	// Only this process: kube-controller-manager keeps Go's default, so
	// neither the GOGC environment variable nor its flags are touched.
	defer debug.SetGCPercent(debug.SetGCPercent(cfg.gogc))
	began := time.Now().UTC()
	var (
		results []result
		errs    []error
	)
	for _, spec := range cfg.runs() {
		res, err := benchmark(ctx, cfg, spec, log)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", res.label(), err))
			if ctx.Err() != nil {
				break
			}
			continue
		}
		results = append(results, res)
	}
	if len(results) > 0 {
		spread := ""
		if cfg.namespaces > 1 {
			spread = fmt.Sprintf(", %d namespaces", cfg.namespaces)
		}
		fmt.Fprintf(out, "scalebench %s\n\nstarted %s, %d kwok nodes%s, GOMAXPROCS %d, GOGC %d, %s\n\n",
			strings.Join(args, " "), began.Format(time.RFC3339), cfg.nodeCount(), spread, runtime.GOMAXPROCS(0), cfg.gogc, runtime.Version())
		fmt.Fprint(out, renderTable(results))
		if cfg.pairs > 1 {
			fmt.Fprint(out, "\n"+renderSummary(pairUp(results)))
		}
		if cfg.shards > 0 {
			fmt.Fprint(out, "\n"+renderShards(results, cfg.namespaces, runtime.NumCPU()))
		}
	}
	return errors.Join(errs...)
}
