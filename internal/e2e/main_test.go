//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ctrlkit/ctrlkit/controller/envtest"
)

// Control planes are shared by the tests of this package, one per kind of
// kube-controller-manager; each test works in a namespace of its own.
var (
	upstreamCP = sharedControlPlane{opts: envtest.Options{Mode: envtest.Full, Kubectl: true, Controllers: []string{"deployment", "replicaset", "garbagecollector"}}}
	ourCP      = sharedControlPlane{opts: envtest.Options{Mode: envtest.Full, Controllers: []string{"replicaset", "garbagecollector"}}}
	// ourShardedCP is ourCP with sharded list and watch (KEP-5866): the
	// API server, not only the client, restricts a replica's informers.
	ourShardedCP = sharedControlPlane{opts: envtest.Options{Mode: envtest.Full, Controllers: []string{"replicaset", "garbagecollector"},
		FeatureGates: map[string]bool{"ShardedListAndWatch": true}}}
	// shardedCP is an API server alone that serves sharded list and watch
	// (KEP-5866).
	shardedCP = sharedControlPlane{opts: envtest.Options{Mode: envtest.APIServerOnly, FeatureGates: map[string]bool{"ShardedListAndWatch": true}}}
	// coordinatedCP is an API server alone that runs coordinated leader
	// election (KEP-4355): its leader election controller assigns Leases
	// to LeaseCandidates.
	coordinatedCP = sharedControlPlane{opts: envtest.Options{Mode: envtest.APIServerOnly,
		FeatureGates:   map[string]bool{"CoordinatedLeaderElection": true},
		APIServerFlags: []string{"--runtime-config=coordination.k8s.io/v1beta1=true"}}}
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, s := range []*sharedControlPlane{&upstreamCP, &ourCP, &ourShardedCP, &shardedCP, &coordinatedCP} {
		if err := s.stop(); err != nil {
			fmt.Fprintln(os.Stderr, "e2e:", err)
			code = 1
		}
	}
	// Every test stopped its controller, informers and watches; with the
	// control planes gone too, nothing of ours may still run.
	if code == 0 {
		if err := goleak.Find(goleak.IgnoreTopFunction("k8s.io/klog/v2.(*flushDaemon).run.func1")); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: leaked goroutines:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// podReadyDelay makes pods take a little time to become Ready, so that
// rollouts go through several steps that the tests can observe.
const (
	podReadyDelay  = 300 * time.Millisecond
	podReadyJitter = 700 * time.Millisecond
)

// sharedControlPlane starts on first use and stops in TestMain.
type sharedControlPlane struct {
	opts envtest.Options
	once sync.Once
	cp   *envtest.Environment
	err  error
}

func (s *sharedControlPlane) get(t *testing.T) *envtest.Environment {
	t.Helper()
	s.once.Do(func() {
		opts := s.opts
		if opts.Mode == envtest.Full {
			opts.PodReadyDelay, opts.PodReadyJitter = podReadyDelay, podReadyJitter
			opts.Nodes = 2
		}
		opts.Log = os.Stderr // the first build takes minutes: show it
		s.cp, s.err = envtest.Start(context.Background(), opts)
	})
	if s.err != nil {
		t.Fatalf("start the local control plane: %v", s.err)
	}
	return s.cp
}

func (s *sharedControlPlane) stop() error {
	if s.cp == nil {
		return nil
	}
	return s.cp.Stop()
}
