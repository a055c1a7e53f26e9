package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/ctrlkit/ctrlkit/internal/childproc"
)

const (
	// readyTimeout bounds the wait for a process to sync its caches and,
	// in a ring, for the ring to hand out every range: a few rounds.
	readyTimeout = 2 * time.Minute
	// stopGrace is how long a process may take to leave after SIGTERM:
	// the ring's drain bound (30 s by default: sharding.Options.DrainTimeout) and some.
	stopGrace = 45 * time.Second
)

// process is a Deployment controller under test, run as a child: its
// output goes to logPath, and base is the address of the one server it
// serves /metrics, its health checks and /debug/pprof/ on, which client
// reaches.
type process struct {
	name, logPath, base string
	client              *http.Client
	*childproc.Process
}

// plainHTTP keeps no idle connections to processes that come and go.
var plainHTTP = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}

// startProcess runs bin with args as name, its output in dir/name.log,
// serving on base.
func startProcess(name, bin string, args []string, dir, base string, client *http.Client) (*process, error) {
	p := &process{name: name, logPath: filepath.Join(dir, name+".log"), base: base, client: client}
	out, err := os.Create(p.logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = out, out
	p.Process, err = childproc.Start(cmd)
	out.Close() // the child has its own copy
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	return p, nil
}

// waitReady polls until ready(p) is nil for every process, failing at
// once if one exits.
func waitReady(ctx context.Context, procs []*process, ready func(context.Context, *process) error) error {
	var waiting []string
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, readyTimeout, true, func(ctx context.Context) (bool, error) {
		waiting = nil
		for _, p := range procs {
			if !p.Running() {
				return false, p.failure()
			}
			if err := ready(ctx, p); err != nil {
				waiting = append(waiting, fmt.Sprintf("%s: %v", p.name, err))
			}
		}
		return len(waiting) == 0, nil
	})
	if wait.Interrupted(err) && ctx.Err() == nil {
		return fmt.Errorf("not ready after %s: %s", readyTimeout, strings.Join(waiting, "; "))
	}
	return err
}

// stop stops p as childproc's Shutdown does, with stopGrace.
func (p *process) stop() error {
	if err := p.Shutdown(stopGrace); err != nil {
		return fmt.Errorf("%s (log %s): %w", p.name, p.logPath, err)
	}
	return nil
}

// stopAll stops every process at once.
func stopAll(procs []*process) error {
	errs := make(chan error, len(procs))
	for _, p := range procs {
		go func() { errs <- p.stop() }()
	}
	var all []error
	for range procs {
		all = append(all, <-errs)
	}
	return errors.Join(all...)
}

// failure describes a process that exited early: its status and the end
// of its log.
func (p *process) failure() error {
	log, _ := os.ReadFile(p.logPath)
	lines := strings.Split(strings.TrimRight(string(log), "\n"), "\n")
	return fmt.Errorf("%s exited (%v); the end of %s:\n%s", p.name, p.Err(), p.logPath, strings.Join(lines[max(0, len(lines)-20):], "\n"))
}

// get returns the body at path on p's server, or an error unless it
// answers 200 within the client's timeout.
func (p *process) get(ctx context.Context, path string) ([]byte, error) {
	return p.getWithin(ctx, path, p.client.Timeout)
}

// getWithin is get with a timeout of its own: a profile takes longer
// than the client's timeout allows.
func (p *process) getWithin(ctx context.Context, path string, timeout time.Duration) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.base+path, nil)
	if err != nil {
		return nil, err
	}
	client := *p.client
	client.Timeout = timeout
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s: %.200s", path, resp.Status, strings.TrimSpace(string(body)))
	}
	return body, err
}

// metrics reads p's /metrics.
func (p *process) metrics(ctx context.Context) (metricFamilies, error) {
	body, err := p.get(ctx, "/metrics")
	if err != nil {
		return nil, err
	}
	return parseMetrics(body)
}

// metricFamilies are a /metrics page, by family name.
type metricFamilies map[string]*dto.MetricFamily

func parseMetrics(text []byte) (metricFamilies, error) {
	parser := expfmt.NewTextParser(model.LegacyValidation)
	return parser.TextToMetricFamilies(bytes.NewReader(text))
}

// value is the value of a family's one series (a gauge, counter or
// untyped), or 0 when it has none or several.
func (m metricFamilies) value(name string) float64 {
	if ms := m[name].GetMetric(); len(ms) == 1 {
		return ms[0].GetGauge().GetValue() + ms[0].GetCounter().GetValue() + ms[0].GetUntyped().GetValue()
	}
	return 0
}

// freePort is a loopback port nothing listens on, for a child to bind.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
