package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/ctrlkit/ctrlkit/controller/envtest"
	"github.com/ctrlkit/ctrlkit/controller/envtest/binaries"
	"github.com/ctrlkit/ctrlkit/internal/childproc"
)

// controllers are the kube-controller-manager controllers the e2e
// framework needs besides the Deployment controller: ReplicaSets and their
// pods, garbage collection, namespace deletion, each namespace's default
// service account and its kube-root-ca.crt ConfigMap.
var controllers = []string{"replicaset", "garbagecollector", "namespace", "serviceaccount", "root-ca-cert-publisher"}

// unpullableImages are the images the specs use to stall a rollout, as a
// kubelet that cannot pull them would ("deployment should support
// proportional scaling" sets "webserver:404"); kwok must not make their
// pods Ready.
var unpullableImages = []string{"webserver:404"}

func main() {
	focus := flag.String("focus", `\[sig-apps\] Deployment`, "ginkgo focus: the specs to run")
	repo := flag.String("repo", ".", "the ctrlkit repository's root (internal/cpbuild pins the versions)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *repo, *focus, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, repo, focus string, out, log io.Writer) error {
	focusRE, err := regexp.Compile(focus)
	if err != nil {
		return fmt.Errorf("-focus: %w", err)
	}
	cacheDir, err := binaries.CacheDir() // beside the control plane's binaries
	if err != nil {
		return err
	}
	e2eBin, err := ensureE2EBinary(ctx, filepath.Join(repo, "internal", "cpbuild"), cacheDir, log)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "ctrlkit-conformance-")
	if err != nil {
		return err
	}
	ours := filepath.Join(work, "deployment-controller")
	build := exec.CommandContext(ctx, "go", "build", "-o", ours, "./examples/deployment-controller")
	build.Dir, build.Stdout, build.Stderr = repo, log, log
	if err := build.Run(); err != nil {
		return fmt.Errorf("build examples/deployment-controller: %w", err)
	}

	results := map[string]map[string]specResult{}
	for _, side := range []string{"upstream", "ctrlkit"} {
		r, err := runSide(ctx, side, e2eBin, ours, filepath.Join(work, side), focus, focusRE, log)
		if err != nil {
			return fmt.Errorf("%s: %w (files in %s)", side, err, work)
		}
		results[side] = r
	}
	regressions := compare(out, results["upstream"], results["ctrlkit"])
	if len(regressions) > 0 {
		return fmt.Errorf("ctrlkit fails %d spec(s) upstream passes: %s (logs in %s)",
			len(regressions), strings.Join(regressions, "; "), work)
	}
	return os.RemoveAll(work)
}

// runSide starts a control plane whose Deployment controller is side's,
// runs the focused e2e specs on it and returns their outcomes.
func runSide(ctx context.Context, side, e2eBin, ours, dir, focus string, focusRE *regexp.Regexp, log io.Writer) (map[string]specResult, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	kcm := controllers
	if side == "upstream" {
		kcm = append([]string{"deployment"}, controllers...)
	}
	fmt.Fprintf(log, "conformance: %s: starting a control plane (kube-controller-manager --controllers=%s)\n", side, strings.Join(kcm, ","))
	env, err := envtest.Start(ctx, envtest.Options{Mode: envtest.Full, Controllers: kcm, Nodes: 2,
		UnpullableImages: unpullableImages, Dir: filepath.Join(dir, "controlplane"), Log: log})
	if err != nil {
		return nil, err
	}
	defer env.Stop()

	if side == "ctrlkit" {
		logFile, err := os.Create(filepath.Join(dir, "deployment-controller.log"))
		if err != nil {
			return nil, err
		}
		defer logFile.Close()
		cmd := exec.Command(ours, "--kubeconfig="+env.KubeconfigPath(), "--leader-elect=false")
		cmd.Stdout, cmd.Stderr = logFile, logFile
		ctrl, err := childproc.Start(cmd)
		if err != nil {
			return nil, err
		}
		// A graceful stop, as the e2e tests and scalebench stop ours.
		defer func() { _ = ctrl.Shutdown(30 * time.Second) }()
	}

	report := filepath.Join(dir, "report.json")
	e2eLog, err := os.Create(filepath.Join(dir, "e2e.log"))
	if err != nil {
		return nil, err
	}
	defer e2eLog.Close()
	fmt.Fprintf(log, "conformance: %s: running the specs (output in %s)\n", side, e2eLog.Name())
	start := time.Now()
	e2e := exec.CommandContext(ctx, e2eBin,
		"--kubeconfig="+env.KubeconfigPath(),
		"--provider=skeleton",
		"--ginkgo.focus="+focus,
		"--ginkgo.json-report="+report,
		"--ginkgo.timeout=1h",
		"--report-dir="+dir,
		"--dump-logs-on-failure=false",
	)
	e2e.Dir, e2e.Stdout, e2e.Stderr = dir, e2eLog, e2eLog
	runErr := e2e.Run() // failing specs exit non-zero; the report says which
	results, err := readReport(report, focusRE)
	if err != nil {
		return nil, fmt.Errorf("e2e run (%v) left no report: %w", runErr, err)
	}
	fmt.Fprintf(log, "conformance: %s: %d specs in %s\n", side, len(results), time.Since(start).Round(time.Second))
	return results, nil
}
