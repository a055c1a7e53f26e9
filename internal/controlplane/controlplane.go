package controlplane

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// ControlPlane is a running local control plane. Stop it when done.
type ControlPlane struct {
	bins   *Binaries
	dir    string
	ownDir bool // created by Start, removed by Stop
	log    io.Writer

	etcd, apiserver *process
	components      []*process // kcm, scheduler, kwok: clients of the API server

	restConfig     *rest.Config
	client         kubernetes.Interface
	kubeconfigPath string
	kcmPort        int

	stopOnce sync.Once
	stopErr  error
}

// Start builds the binaries if needed (see EnsureBinaries), then starts
// etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok on
// free loopback ports, creates the kwok nodes, and returns once the nodes are
// Ready and schedulable. ctx bounds the start only; the control plane runs
// until Stop. On error nothing is left running.
func Start(ctx context.Context, opts Options) (*ControlPlane, error) {
	log := opts.log()
	bins := opts.Binaries
	if bins == nil {
		var err error
		if bins, err = EnsureBinaries(ctx, log); err != nil {
			return nil, err
		}
	}
	// Free ports are found by binding and releasing them, so another process
	// can take one before our component binds it: then start again.
	const attempts = 3
	for attempt := 1; ; attempt++ {
		cp, err := start(ctx, bins, opts)
		if err == nil {
			return cp, nil
		}
		if !errors.Is(err, errPortInUse) || attempt == attempts || ctx.Err() != nil {
			return nil, err
		}
		fmt.Fprintf(log, "controlplane: %v; starting again on other ports\n", err)
	}
}

// errPortInUse marks a start that failed because a port was taken.
var errPortInUse = errors.New("port already in use")

func start(ctx context.Context, bins *Binaries, opts Options) (_ *ControlPlane, err error) {
	began := time.Now()
	ctx, cancel := context.WithTimeout(ctx, opts.startTimeout())
	defer cancel()

	cp := &ControlPlane{bins: bins, dir: opts.Dir, log: opts.log()}
	if cp.dir == "" {
		removeLeftovers(os.TempDir())
		if cp.dir, err = os.MkdirTemp("", instanceDirPrefix); err != nil {
			return nil, err
		}
		cp.ownDir = true
		if err := writeOwner(cp.dir); err != nil {
			_ = os.RemoveAll(cp.dir)
			return nil, err
		}
	} else {
		// A previous attempt's etcd data would belong to another cluster.
		if err := os.RemoveAll(filepath.Join(cp.dir, "etcd")); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(cp.dir, 0o755); err != nil {
			return nil, err
		}
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, cp.Stop())
		}
	}()

	ports, err := freePorts(5)
	if err != nil {
		return nil, err
	}
	etcdPort, etcdPeerPort, apiPort, kcmPort, schedPort := ports[0], ports[1], ports[2], ports[3], ports[4]
	cp.kcmPort = kcmPort

	keys, err := writePKI(cp.dir)
	if err != nil {
		return nil, fmt.Errorf("write keys: %w", err)
	}
	server := fmt.Sprintf("https://127.0.0.1:%d", apiPort)
	cp.restConfig = &rest.Config{
		Host:            server,
		BearerToken:     keys.adminToken,
		TLSClientConfig: rest.TLSClientConfig{CAData: keys.caPEM},
		// Tests create many objects quickly; the default 5 QPS would make
		// them measure the client, not the controller.
		QPS:   500,
		Burst: 1000,
	}
	if cp.client, err = kubernetes.NewForConfig(cp.restConfig); err != nil {
		return nil, err
	}
	cp.kubeconfigPath = filepath.Join(cp.dir, "kubeconfig")
	if err := writeKubeconfig(cp.kubeconfigPath, server, keys); err != nil {
		return nil, fmt.Errorf("write kubeconfig: %w", err)
	}
	kwokConf, err := kwokConfig(bins.StagesDir(), opts.PodReadyDelay, opts.PodReadyJitter)
	if err != nil {
		return nil, fmt.Errorf("kwok stages: %w", err)
	}
	kwokConfPath := filepath.Join(cp.dir, "kwok.yaml")
	if err := os.WriteFile(kwokConfPath, kwokConf, 0o600); err != nil {
		return nil, err
	}
	kwokHome := filepath.Join(cp.dir, "kwok-home") // so ~/.kwok/kwok.yaml is not read
	if err := os.MkdirAll(kwokHome, 0o700); err != nil {
		return nil, err
	}

	fmt.Fprintf(cp.log, "controlplane: starting in %s\n", cp.dir)
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", etcdPort)
	if cp.etcd, err = cp.run("etcd", etcdArgs(cp.dir, etcdURL, etcdPeerPort), nil); err != nil {
		return nil, err
	}
	if cp.apiserver, err = cp.run("kube-apiserver", append(apiserverArgs(cp.dir, etcdURL, apiPort, keys), opts.APIServerFlags...), nil); err != nil {
		return nil, err
	}
	if err := cp.waitFor(ctx, "kube-apiserver to be ready", cp.apiserverReady); err != nil {
		return nil, err
	}
	fmt.Fprintf(cp.log, "controlplane: kube-apiserver ready at %s after %s\n", server, time.Since(began).Round(100*time.Millisecond))

	kcm, err := cp.run("kube-controller-manager", kcmArgs(cp.kubeconfigPath, kcmPort, opts), nil)
	if err != nil {
		return nil, err
	}
	cp.components = append(cp.components, kcm)
	sched, err := cp.run("kube-scheduler", schedulerArgs(cp.kubeconfigPath, schedPort), nil)
	if err != nil {
		return nil, err
	}
	cp.components = append(cp.components, sched)
	kwok, err := cp.run("kwok", kwokArgs(cp.kubeconfigPath, kwokConfPath), []string{"HOME=" + kwokHome})
	if err != nil {
		return nil, err
	}
	cp.components = append(cp.components, kwok)

	if err := createNodes(ctx, cp.client, opts.nodes(), bins.KubernetesVersion()); err != nil {
		return nil, err
	}
	if err := cp.waitFor(ctx, "kube-controller-manager to be healthy", healthz(kcmPort)); err != nil {
		return nil, err
	}
	if err := cp.waitFor(ctx, "kube-scheduler to be healthy", healthz(schedPort)); err != nil {
		return nil, err
	}
	if err := cp.waitFor(ctx, "the kwok nodes to be Ready and untainted", nodesReady(cp.client, opts.nodes())); err != nil {
		return nil, err
	}
	fmt.Fprintf(cp.log, "controlplane: ready in %s; kubeconfig %s\n", time.Since(began).Round(100*time.Millisecond), cp.kubeconfigPath)
	return cp, nil
}

// run starts one component, logging its command line to its log file.
func (cp *ControlPlane) run(name string, args, extraEnv []string) (*process, error) {
	bin := cp.bins.Path(name)
	if err := os.WriteFile(filepath.Join(cp.dir, name+".log"), []byte(commandLine(bin, args)+"\n"), 0o600); err != nil {
		return nil, err
	}
	return startProcess(cp.dir, name, bin, args, append(os.Environ(), extraEnv...))
}

// processes lists every started process, servers last.
func (cp *ControlPlane) processes() []*process {
	var all []*process
	all = append(all, cp.components...)
	for _, p := range []*process{cp.apiserver, cp.etcd} {
		if p != nil {
			all = append(all, p)
		}
	}
	return all
}

// checkExited returns the exit error of the first process that has ended,
// marked errPortInUse when its log says a port was taken.
func (cp *ControlPlane) checkExited() error {
	for _, p := range cp.processes() {
		if p.exited() {
			err := p.exitError()
			if strings.Contains(err.Error(), "address already in use") {
				return fmt.Errorf("%w: %w", errPortInUse, err)
			}
			return err
		}
	}
	return nil
}

// waitFor polls cond until it holds, a process exits, or ctx ends.
func (cp *ControlPlane) waitFor(ctx context.Context, what string, cond func(context.Context) error) error {
	ticker := time.NewTicker(100 * time.Millisecond)
	defer ticker.Stop()
	for {
		if err := cp.checkExited(); err != nil {
			return fmt.Errorf("waiting for %s: %w", what, err)
		}
		last := cond(ctx)
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("timed out waiting for %s (logs in %s): %w", what, cp.dir, last)
		case <-ticker.C:
		}
	}
}

// RESTConfig returns a new copy of the admin client configuration, with a
// high client rate limit.
func (cp *ControlPlane) RESTConfig() *rest.Config { return rest.CopyConfig(cp.restConfig) }

// Client returns a clientset for the admin user.
func (cp *ControlPlane) Client() kubernetes.Interface { return cp.client }

// KubeconfigPath returns the path of a kubeconfig file for the admin user,
// for kubectl and other programs.
func (cp *ControlPlane) KubeconfigPath() string { return cp.kubeconfigPath }

// Dir returns the instance's directory, where each component logs to
// <name>.log.
func (cp *ControlPlane) Dir() string { return cp.dir }

// Binaries returns the programs the control plane runs.
func (cp *ControlPlane) Binaries() *Binaries { return cp.bins }

// Kubectl returns a kubectl command that talks to this control plane.
func (cp *ControlPlane) Kubectl(ctx context.Context, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, cp.bins.Path("kubectl"), append([]string{"--kubeconfig", cp.kubeconfigPath}, args...)...)
}

// Wait blocks until ctx ends (returning nil) or a component exits on its own
// (returning why).
func (cp *ControlPlane) Wait(ctx context.Context) error {
	ticker := time.NewTicker(500 * time.Millisecond)
	defer ticker.Stop()
	for {
		if err := cp.checkExited(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}

// Stop stops every process, waits until all are gone, and removes the
// directory if Start created it. It is safe to call more than once; later
// calls return the first call's result.
func (cp *ControlPlane) Stop() error {
	cp.stopOnce.Do(func() {
		began := time.Now()
		// Clients first, then the API server, then its storage: each stops
		// faster with nothing talking to it.
		errs := []error{stopAll(cp.components, 2*time.Second)}
		if cp.apiserver != nil {
			errs = append(errs, cp.apiserver.stop(apiserverGrace))
		}
		if cp.etcd != nil {
			errs = append(errs, cp.etcd.stop(2*time.Second))
		}
		if err := errors.Join(errs...); err != nil {
			// Keep the logs: they may say why a process would not stop.
			cp.stopErr = fmt.Errorf("stop control plane (files kept in %s): %w", cp.dir, err)
			return
		}
		if cp.ownDir {
			cp.stopErr = os.RemoveAll(cp.dir)
		}
		fmt.Fprintf(cp.log, "controlplane: stopped in %s\n", time.Since(began).Round(100*time.Millisecond))
	})
	return cp.stopErr
}

// apiserverGrace is how long kube-apiserver may take to stop after SIGTERM
// before it is killed. Its data is thrown away, so nothing is lost by
// killing it; the grace only lets it close connections politely.
const apiserverGrace = 5 * time.Second
