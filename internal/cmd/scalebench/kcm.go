package main

import (
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

	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/controller/envtest"
	"github.com/ctrlkit/ctrlkit/internal/childproc"
)

// deploymentKCM is a second kube-controller-manager, beside the control
// plane's own (which runs the ReplicaSet controller and the rest), with
// only the Deployment controller: the process the memory mode measures
// ours against.
type deploymentKCM struct {
	memProcess
	logPath string
	proc    *childproc.Process
}

// startDeploymentKCM starts kube-controller-manager --controllers=deployment
// against cp, logging into dir, under the conditions ours runs under, and
// waits until it is healthy. Its secure port serves /metrics and /debug/pprof/ (kcm's
// --profiling is on by default) to the admin credentials.
func startDeploymentKCM(ctx context.Context, cp *envtest.Environment, dir string) (*deploymentKCM, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	kubeconfig := cp.KubeconfigPath()
	args := []string{
		"--kubeconfig=" + kubeconfig,
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
		"--leader-elect=false",
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", port),
		"--controllers=deployment",
		fmt.Sprintf("--concurrent-deployment-syncs=%d", workers),
		fmt.Sprintf("--kube-api-qps=%d", qps), fmt.Sprintf("--kube-api-burst=%d", burst),
	}
	k := &deploymentKCM{logPath: filepath.Join(dir, "kube-controller-manager-deployment.log")}
	out, err := os.Create(k.logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(cp.Binaries().Path("kube-controller-manager"), args...)
	cmd.Stdout, cmd.Stderr = out, out
	k.proc, err = childproc.Start(cmd)
	out.Close() // the child has its own copy
	if err != nil {
		return nil, fmt.Errorf("start kube-controller-manager: %w", err)
	}
	// kcm serves a self-signed certificate it makes at start: on this
	// loopback port, the client's identity matters, not the server's (as
	// envtest.Environment.ControllerManagerMetrics reads the other one).
	rc := cp.RESTConfig()
	rc.TLSClientConfig = rest.TLSClientConfig{Insecure: true}
	rc.Timeout = 30 * time.Second
	client, err := rest.HTTPClientFor(rc)
	if err != nil {
		return nil, errors.Join(err, k.stop())
	}
	base := fmt.Sprintf("https://127.0.0.1:%d", port)
	k.memProcess = memProcess{name: "kube-controller-manager", pid: k.proc.Pid(), get: func(ctx context.Context, path string) ([]byte, error) {
		return getWith(ctx, client, base+path)
	}}
	deadline := time.Now().Add(readyTimeout)
	for {
		if !k.proc.Running() {
			return nil, errors.Join(fmt.Errorf("kube-controller-manager exited (%v); see %s", k.proc.Err(), k.logPath), k.stop())
		}
		_, err := k.get(ctx, "/healthz")
		if err == nil {
			return k, nil
		}
		if time.Now().After(deadline) {
			return nil, errors.Join(fmt.Errorf("kube-controller-manager not healthy after %s: %w", readyTimeout, err), k.stop())
		}
		select {
		case <-ctx.Done():
			return nil, errors.Join(ctx.Err(), k.stop())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// stop stops kcm. It exits on SIGTERM with the signal's status rather
// than 0, so only a stop that needed SIGKILL, or failed, is an error.
func (k *deploymentKCM) stop() error {
	killed, err := k.proc.Stop(stopGrace)
	if killed && err == nil {
		err = fmt.Errorf("did not exit within %s of SIGTERM: killed", stopGrace)
	}
	if err != nil {
		return fmt.Errorf("kube-controller-manager (log %s): %w", k.logPath, err)
	}
	return nil
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

// getWith is get with client.
func getWith(ctx context.Context, client *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s: %.200s", url, resp.Status, strings.TrimSpace(string(body)))
	}
	return body, err
}
