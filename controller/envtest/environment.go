package envtest

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

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/controller/envtest/binaries"
	"github.com/ctrlkit/ctrlkit/controller/envtest/internal/kwokstages"
)

// Environment is a running local control plane: etcd and kube-apiserver,
// and in Full mode kube-scheduler, kube-controller-manager and kwok. Its
// processes run in their own directory on free loopback ports, so several
// environments can run at once. Stop it when done; StartForTest and RunMain
// do that for tests.
type Environment struct {
	mode   Mode
	bins   *binaries.Set
	dir    string
	ownDir bool // created by Start, removed by Stop
	log    io.Writer

	etcd, apiserver *process
	components      []*process // kcm, scheduler, kwok: clients of the API server

	restConfig     *rest.Config
	client         kubernetes.Interface
	kubeconfigPath string
	kcmPort        int
	webhookCertDir string
	crdNames       []string // installed by Start, for InstallWebhooks' ConversionPath
	etcdURL        string

	stopOnce sync.Once
	stopErr  error
}

// Start gets the binaries that opts.Mode needs (opts.Binaries, else
// binaries.Ensure: found, downloaded or built), starts etcd and kube-apiserver on free loopback
// ports and, in Full mode, kube-controller-manager, kube-scheduler, kwok and
// the kwok nodes, after installing opts.CRDPaths. It returns once the API
// server is ready, the CRDs are Established and, in Full mode, the nodes are
// Ready and schedulable. ctx bounds the start only; the environment runs
// until Stop. On error nothing is left running.
func Start(ctx context.Context, opts Options) (*Environment, error) {
	log := opts.log()
	crds, err := readCRDs(opts.CRDPaths)
	if err != nil {
		return nil, err
	}
	bins, err := opts.ensureBinaries(ctx)
	if err != nil {
		return nil, err
	}
	// Free ports are found by binding and releasing them, so another process
	// can take one before our component binds it: then start again.
	const attempts = 3
	for attempt := 1; ; attempt++ {
		env, err := start(ctx, bins, opts, crds)
		if err == nil {
			return env, nil
		}
		if !errors.Is(err, errPortInUse) || attempt == attempts || ctx.Err() != nil {
			return nil, err
		}
		fmt.Fprintf(log, "envtest: %v; starting again on other ports\n", err)
	}
}

// errPortInUse marks a start that failed because a port was taken.
var errPortInUse = errors.New("port already in use")

func start(ctx context.Context, bins *binaries.Set, opts Options, crds []*unstructured.Unstructured) (_ *Environment, err error) {
	began := time.Now()
	ctx, cancel := context.WithTimeout(ctx, opts.startTimeout())
	defer cancel()

	env := &Environment{mode: opts.Mode, bins: bins, dir: opts.Dir, log: opts.log()}
	if env.dir == "" {
		removeLeftovers(os.TempDir())
		if env.dir, err = os.MkdirTemp("", instanceDirPrefix); err != nil {
			return nil, err
		}
		env.ownDir = true
		if err := writeOwner(env.dir); err != nil {
			_ = os.RemoveAll(env.dir)
			return nil, err
		}
	} else {
		// A previous attempt's etcd data would belong to another cluster.
		if err := os.RemoveAll(filepath.Join(env.dir, "etcd")); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(env.dir, 0o755); err != nil {
			return nil, err
		}
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, env.Stop())
		}
	}()

	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	etcdPort, etcdPeerPort, apiPort := ports[0], ports[1], ports[2]
	keys, err := writePKI(env.dir)
	if err != nil {
		return nil, fmt.Errorf("write keys: %w", err)
	}
	env.webhookCertDir = keys.webhookCertDir
	server := fmt.Sprintf("https://127.0.0.1:%d", apiPort)
	env.restConfig = &rest.Config{
		Host:            server,
		BearerToken:     keys.adminToken,
		TLSClientConfig: rest.TLSClientConfig{CAData: keys.caPEM},
		// Tests create many objects quickly; the default 5 QPS would make
		// them measure the client, not the controller.
		QPS:   500,
		Burst: 1000,
	}
	if env.client, err = kubernetes.NewForConfig(env.restConfig); err != nil {
		return nil, err
	}
	env.kubeconfigPath = filepath.Join(env.dir, "kubeconfig")
	if err := writeKubeconfig(env.kubeconfigPath, server, keys); err != nil {
		return nil, fmt.Errorf("write kubeconfig: %w", err)
	}

	fmt.Fprintf(env.log, "envtest: starting (%s) in %s\n", opts.Mode, env.dir)
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", etcdPort)
	env.etcdURL = etcdURL
	if env.etcd, err = env.run("etcd", etcdArgs(env.dir, etcdURL, etcdPeerPort), nil); err != nil {
		return nil, err
	}
	if env.apiserver, err = env.run("kube-apiserver", apiserverArgs(env.dir, etcdURL, apiPort, keys, opts), nil); err != nil {
		return nil, err
	}
	if err := env.waitFor(ctx, "kube-apiserver to be ready", env.apiserverReady); err != nil {
		return nil, err
	}
	fmt.Fprintf(env.log, "envtest: kube-apiserver ready at %s after %s\n", server, time.Since(began).Round(100*time.Millisecond))

	// CRDs before kube-controller-manager, so that its garbage collector
	// knows their kinds from the start rather than from its next discovery
	// (every 30 s): owned objects of a custom resource are collected at once.
	if err := installCRDs(ctx, env, crds); err != nil {
		return nil, err
	}
	if opts.Mode == Full {
		if err := env.startNodeComponents(ctx, opts); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(env.log, "envtest: ready in %s; kubeconfig %s\n", time.Since(began).Round(100*time.Millisecond), env.kubeconfigPath)
	return env, nil
}

// startNodeComponents starts what makes pods run (Full mode):
// kube-controller-manager, kube-scheduler, kwok and its nodes, and waits
// until the nodes are Ready and schedulable.
func (env *Environment) startNodeComponents(ctx context.Context, opts Options) error {
	ports, err := freePorts(2)
	if err != nil {
		return err
	}
	kcmPort, schedPort := ports[0], ports[1]
	env.kcmPort = kcmPort
	kwokConf, err := kwokstages.Config(env.bins.StagesDir(), kwokstages.Readiness{
		Delay: opts.PodReadyDelay, Jitter: opts.PodReadyJitter, Unpullable: opts.UnpullableImages})
	if err != nil {
		return fmt.Errorf("kwok stages: %w", err)
	}
	kwokConfPath := filepath.Join(env.dir, "kwok.yaml")
	if err := os.WriteFile(kwokConfPath, kwokConf, 0o600); err != nil {
		return err
	}
	kwokHome := filepath.Join(env.dir, "kwok-home") // so ~/.kwok/kwok.yaml is not read
	if err := os.MkdirAll(kwokHome, 0o700); err != nil {
		return err
	}
	for _, c := range []struct {
		name     string
		args, ev []string
	}{
		{"kube-controller-manager", kcmArgs(env.kubeconfigPath, kcmPort, opts), nil},
		{"kube-scheduler", schedulerArgs(env.kubeconfigPath, schedPort, opts), nil},
		{"kwok", kwokArgs(env.kubeconfigPath, kwokConfPath), []string{"HOME=" + kwokHome}},
	} {
		p, err := env.run(c.name, c.args, c.ev)
		if err != nil {
			return err
		}
		env.components = append(env.components, p)
	}
	if err := createNodes(ctx, env.client, opts.nodes(), env.bins.KubernetesVersion()); err != nil {
		return err
	}
	if err := env.waitFor(ctx, "kube-controller-manager to be healthy", healthz(kcmPort)); err != nil {
		return err
	}
	if err := env.waitFor(ctx, "kube-scheduler to be healthy", healthz(schedPort)); err != nil {
		return err
	}
	return env.waitFor(ctx, "the kwok nodes to be Ready and untainted", nodesReady(env.client, opts.nodes()))
}

// run starts one component, logging its command line to its log file.
func (env *Environment) run(name string, args, extraEnv []string) (*process, error) {
	bin := env.bins.Path(name)
	if err := os.WriteFile(filepath.Join(env.dir, name+".log"), []byte(commandLine(bin, args)+"\n"), 0o600); err != nil {
		return nil, err
	}
	return startProcess(env.dir, name, bin, args, append(os.Environ(), extraEnv...))
}

// processes lists every started process, servers last.
func (env *Environment) processes() []*process {
	var all []*process
	all = append(all, env.components...)
	for _, p := range []*process{env.apiserver, env.etcd} {
		if p != nil {
			all = append(all, p)
		}
	}
	return all
}

// checkExited returns the exit error of the first process that has ended,
// marked errPortInUse when its log says a port was taken.
func (env *Environment) checkExited() error {
	for _, p := range env.processes() {
		if !p.Running() {
			err := p.exitError()
			if strings.Contains(err.Error(), "address already in use") {
				return fmt.Errorf("%w: %w", errPortInUse, err)
			}
			return err
		}
	}
	return nil
}

// permanentError is a condition's answer that waiting longer cannot
// change: waitFor returns it at once.
type permanentError struct{ error }

func (e permanentError) Unwrap() error { return e.error }

// waitFor polls cond until it holds, it answers a permanentError, a process
// exits, or ctx ends.
func (env *Environment) waitFor(ctx context.Context, what string, cond func(context.Context) error) error {
	var last, stop error
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if stop = env.checkExited(); stop != nil {
			return false, stop
		}
		last = cond(ctx)
		if errors.As(last, new(permanentError)) {
			stop = last
			return false, stop
		}
		return last == nil, nil
	})
	switch {
	case err == nil:
		return nil
	case stop != nil:
		return fmt.Errorf("waiting for %s: %w", what, stop)
	case last == nil:
		last = err
	}
	return fmt.Errorf("timed out waiting for %s (logs in %s): %w", what, env.dir, last)
}

// RESTConfig returns a new copy of the admin client configuration, with a
// high client rate limit.
func (env *Environment) RESTConfig() *rest.Config { return rest.CopyConfig(env.restConfig) }

// EtcdURL returns the client URL of the environment's etcd (plain HTTP on
// loopback, no authentication), for tests that check what the API server
// stored, e.g. at which version: etcd serves its v3 API as JSON there
// (POST /v3/kv/range, keys and values in base64), so no etcd client is
// needed. Keys are /registry/<group>/<resource>/<namespace>/<name>.
func (env *Environment) EtcdURL() string { return env.etcdURL }

// Client returns a clientset for the admin user.
func (env *Environment) Client() kubernetes.Interface { return env.client }

// KubeconfigPath returns the path of a kubeconfig file for the admin user,
// for kubectl and other programs.
func (env *Environment) KubeconfigPath() string { return env.kubeconfigPath }

// Dir returns the instance's directory, where each component logs to
// <name>.log.
func (env *Environment) Dir() string { return env.dir }

// Mode returns the components the environment runs.
func (env *Environment) Mode() Mode { return env.mode }

// Binaries returns the programs the environment runs.
func (env *Environment) Binaries() *binaries.Set { return env.bins }

// Kubectl returns a kubectl command that talks to this environment.
// kubectl is provided when Options.Kubectl is set; otherwise the command
// fails to start unless kubectl was provided before with the same cache.
func (env *Environment) Kubectl(ctx context.Context, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, env.bins.Path("kubectl"), append([]string{"--kubeconfig", env.kubeconfigPath}, args...)...)
}

// Wait blocks until ctx ends (returning nil) or a component exits on its own
// (returning why).
func (env *Environment) Wait(ctx context.Context) error {
	var exited error
	_ = wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(context.Context) (bool, error) {
		exited = env.checkExited()
		return exited != nil, nil
	})
	return exited
}

// Stop stops every process, waits until all are gone, and removes the
// directory if Start created it. It is safe to call more than once; later
// calls return the first call's result.
func (env *Environment) Stop() error {
	env.stopOnce.Do(func() {
		began := time.Now()
		// Clients first, then the API server, then its storage: each stops
		// faster with nothing talking to it.
		errs := []error{stopAll(env.components, 2*time.Second)}
		if env.apiserver != nil {
			errs = append(errs, env.apiserver.stop(apiserverGrace))
		}
		if env.etcd != nil {
			errs = append(errs, env.etcd.stop(2*time.Second))
		}
		if err := errors.Join(errs...); err != nil {
			// Keep the logs: they may say why a process would not stop.
			env.stopErr = fmt.Errorf("stop control plane (files kept in %s): %w", env.dir, err)
			return
		}
		if env.ownDir {
			env.stopErr = os.RemoveAll(env.dir)
		}
		fmt.Fprintf(env.log, "envtest: stopped in %s\n", time.Since(began).Round(100*time.Millisecond))
	})
	return env.stopErr
}

// apiserverGrace is how long kube-apiserver may take to stop after SIGTERM
// before it is killed. Its data is thrown away, so nothing is lost by
// killing it; the grace only lets it close connections politely.
const apiserverGrace = 5 * time.Second
