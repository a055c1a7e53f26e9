//go:build e2e && unix

package envtest

import (
	"errors"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Two Full environments start side by side (as two test packages would), each
// works, and Stop leaves no process, port or directory behind.
func TestParallelInstancesStopWithoutLeftovers(t *testing.T) {
	const instances = 2
	envs := make([]*Environment, instances)
	errs := make([]error, instances)
	var wg sync.WaitGroup
	for i := range instances {
		wg.Go(func() { envs[i], errs[i] = Start(t.Context(), Options{Mode: Full, Log: &testLogWriter{t: t}}) })
	}
	wg.Wait()
	for i := range envs {
		if errs[i] != nil {
			for _, env := range envs {
				if env != nil {
					env.Stop()
				}
			}
			t.Fatalf("start instance %d: %v", i, errs[i])
		}
	}
	if envs[0].RESTConfig().Host == envs[1].RESTConfig().Host {
		t.Fatalf("both instances serve at %s", envs[0].RESTConfig().Host)
	}

	for i, env := range envs {
		nodes, err := env.Client().CoreV1().Nodes().List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatalf("instance %d: list nodes: %v", i, err)
		}
		if len(nodes.Items) != 1 || nodes.Items[0].Name != NodeName(0) {
			t.Errorf("instance %d has nodes %v, want just %s", i, nodes.Items, NodeName(0))
		}

		// kcm's metrics are readable with the admin credentials, with
		// its controllers' work queues among them.
		kcmMetrics, err := env.ControllerManagerMetrics(t.Context())
		if err != nil {
			t.Errorf("instance %d: %v", i, err)
		} else if !strings.Contains(string(kcmMetrics), `workqueue_adds_total{name="replicaset"}`) {
			t.Errorf("instance %d: kube-controller-manager metrics lack the replicaset queue's adds", i)
		}

		var pids []int
		for _, p := range env.processes() {
			pids = append(pids, p.Pid())
		}
		if len(pids) != 5 {
			t.Errorf("instance %d runs %d processes, want 5", i, len(pids))
		}
		host := env.RESTConfig().Host[len("https://"):]
		if err := env.Stop(); err != nil {
			t.Fatalf("stop instance %d: %v", i, err)
		}
		if err := env.Stop(); err != nil {
			t.Errorf("second Stop of instance %d: %v", i, err)
		}
		for _, pid := range pids {
			if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("instance %d: process %d still exists after Stop (kill 0: %v)", i, pid, err)
			}
		}
		if _, err := os.Stat(env.Dir()); !os.IsNotExist(err) {
			t.Errorf("instance %d: directory %s left behind (stat: %v)", i, env.Dir(), err)
		}
		// The port is free again: another instance could take it now.
		l, err := net.Listen("tcp", host)
		if err != nil {
			t.Errorf("instance %d: API server port %s not free after Stop: %v", i, host, err)
		} else {
			l.Close()
		}
	}
}
