//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/internal/childproc"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// buildCommand builds the main package pkg (an import path of this module)
// into a temporary directory of t and returns the binary's path. It is
// built without -race: the processes are the system under test, and their
// speed matters more than another race check on code the unit tests cover.
func buildCommand(t *testing.T, pkg string) string {
	t.Helper()
	gocmd, err := exec.LookPath("go") // go test puts its toolchain first on PATH
	if err != nil {
		t.Fatalf("the go command is needed to build %s: %v", pkg, err)
	}
	out := filepath.Join(t.TempDir(), filepath.Base(pkg))
	began := time.Now()
	cmd := exec.CommandContext(t.Context(), gocmd, "build", "-o", out, pkg)
	cmd.WaitDelay = 10 * time.Second
	if output, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, output)
	}
	t.Logf("built %s in %s", pkg, time.Since(began).Round(100*time.Millisecond))
	return out
}

// process is a child process of the test whose output goes to a file (a
// pipe could block it, or its Wait, forever). Its Cleanup stops it, so
// that none survives the test, and prints the tail of its output if the
// test failed.
type process struct {
	name    string
	logPath string
	*childproc.Process
}

// startProcess runs bin with args until the test ends.
func startProcess(t *testing.T, name, bin string, args ...string) *process {
	t.Helper()
	p := &process{name: name, logPath: filepath.Join(t.TempDir(), name+".log")}
	if d := os.Getenv("CTRLKIT_E2E_LOGS"); d != "" {
		dir := filepath.Join(d, strings.ReplaceAll(t.Name(), "/", "_"))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		p.logPath = filepath.Join(dir, name+".log")
	}
	out, err := os.Create(p.logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close() // the child has its own copy
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = out, out
	// Dies with the test binary, even one killed by -timeout.
	if p.Process, err = childproc.Start(cmd); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	t.Cleanup(func() {
		if err := p.stop(15 * time.Second); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if t.Failed() {
			t.Logf("%s (%s), last lines of its output:\n%s", name, strings.Join(args, " "), p.tail(60))
		}
	})
	return p
}

// kill sends SIGKILL and returns when the process has exited, and when it
// was killed.
func (p *process) kill(t *testing.T) time.Time {
	t.Helper()
	at := time.Now()
	if err := p.Kill(); err != nil {
		t.Fatalf("kill %s: %v", p.name, err)
	}
	return at
}

// stop asks the process to shut down with SIGTERM and waits at most grace
// for it, then kills it (childproc's Shutdown: an error if it had to be
// killed or failed on SIGTERM; nil if it had exited already, as a killed
// one has).
func (p *process) stop(grace time.Duration) error { return p.Shutdown(grace) }

// output is everything the process has written so far.
func (p *process) output() []byte {
	b, _ := os.ReadFile(p.logPath)
	return b
}

// tail is the process's last n lines of output, without the informational
// lines logged inside reconciles (they carry a reconcileID), which would
// drown the rest: errors, warnings, and the ring's and the manager's lines
// stay.
func (p *process) tail(n int) string {
	var kept []string
	for line := range strings.Lines(string(p.output())) {
		if !strings.HasPrefix(line, "I") || !strings.Contains(line, ` reconcileID="`) {
			kept = append(kept, line)
		}
	}
	kept = kept[max(0, len(kept)-n):]
	return strings.Join(kept, "")
}

// findInOutput waits for pattern's first submatch in the process's output,
// failing the test if the process exits first.
func (p *process) findInOutput(t *testing.T, timeout time.Duration, what string, pattern *regexp.Regexp) string {
	t.Helper()
	var found string
	testutil.Eventually(t, timeout, p.name+" to log "+what, func(context.Context) (bool, error) {
		if m := pattern.FindSubmatch(p.output()); m != nil {
			found = string(m[1])
			return true, nil
		}
		if !p.Running() {
			t.Fatalf("%s exited (%v) before logging %s; its output:\n%s", p.name, p.Err(), what, p.tail(60))
		}
		return false, nil
	})
	return found
}

// scrapeClient keeps no idle connection, whose goroutines would outlive
// the test (and the package's leak check) until the server went away.
var scrapeClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}

// scrape reads the Prometheus text exposition at url.
func scrape(ctx context.Context, url string) (map[string]*dto.MetricFamily, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := scrapeClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	return parser.TextToMetricFamilies(bytes.NewReader(body))
}

// labelsOf are m's labels as a map.
func labelsOf(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}
