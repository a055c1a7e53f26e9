package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/lease"
	"github.com/ctrlkit/ctrlkit/controller/sharding"
	"github.com/ctrlkit/ctrlkit/deployment"
	"github.com/ctrlkit/ctrlkit/handler"
)

// The ring's timings: short, so that the ring forms (and a replica's
// range would move after a crash) within seconds rather than the default
// quarter of a minute. Each member renews and lists every retry period.
const (
	ringName          = "demo-deployment-controller"
	ringLeaseDuration = 3 * time.Second
	ringRenewDeadline = 2 * time.Second
	ringRetryPeriod   = 250 * time.Millisecond
	ringDrainTimeout  = 10 * time.Second
)

// replica is one sharded Deployment controller in this process, as one
// replica of a sharded controller-manager would be: its own client, ring
// member, informer factory and controller.
type replica struct {
	id   string
	ring *sharding.Ring
	gate *recordingGate
	stop func() error
}

// startReplica joins the ring, with its Leases in ringNS, as member id and
// runs a Deployment controller that caches and reconciles only the
// member's namespaces. It returns once the controller's informers have
// listed the member's first range.
func startReplica(ctx context.Context, cfg *rest.Config, ringNS, id string) (*replica, error) {
	cfg = rest.CopyConfig(cfg)
	// The ring renews and lists every retry period besides the
	// controller's writes: client-go's default 5 QPS would starve both.
	cfg.QPS, cfg.Burst = 50, 100
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ring, err := sharding.New(sharding.Options{
		Name: ringName,
		Lease: lease.Config{Client: client, Namespace: ringNS, ID: id,
			LeaseDuration: ringLeaseDuration, RenewDeadline: ringRenewDeadline, RetryPeriod: ringRetryPeriod},
		DrainTimeout: ringDrainTimeout,
		Logger:       funcr.New(func(prefix, args string) {}, funcr.Options{}),
	})
	if err != nil {
		return nil, err
	}
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTransform(handler.StripManagedFields))
	if err := sharding.Shard(factory, ring,
		sharding.ResourceOf(client.AppsV1().Deployments(metav1.NamespaceAll), sharding.Namespaced),
		sharding.ResourceOf(client.AppsV1().ReplicaSets(metav1.NamespaceAll), sharding.Namespaced),
		sharding.ResourceOf(client.CoreV1().Pods(metav1.NamespaceAll), sharding.Namespaced),
	); err != nil {
		return nil, err
	}
	copts, err := sharding.ControllerOptions(ring, controller.Options[string]{}, nil)
	if err != nil {
		return nil, err
	}
	gate := newRecordingGate(copts.Gate)
	copts.Gate = gate
	stop, err := runController(ctx, client, factory, metav1.NamespaceAll,
		corev1.EventSource{Component: eventComponent, Host: id},
		deployment.Options{Controller: copts}, ring.Run)
	if err != nil {
		return nil, fmt.Errorf("replica %s: %w", id, err)
	}
	return &replica{id: id, ring: ring, gate: gate, stop: stop}, nil
}

// startReplicas starts n replicas, replica-0 to replica-(n-1).
func startReplicas(ctx context.Context, cfg *rest.Config, ringNS string, n int) ([]*replica, error) {
	var replicas []*replica
	for i := range n {
		r, err := startReplica(ctx, cfg, ringNS, fmt.Sprintf("replica-%d", i))
		if err != nil {
			return nil, errors.Join(err, stopReplicas(replicas))
		}
		replicas = append(replicas, r)
	}
	return replicas, nil
}

// stopReplicas stops the replicas together, so that they leave at once
// rather than handing their ranges to each other one by one.
func stopReplicas(replicas []*replica) error {
	errs := make([]error, len(replicas))
	var wg sync.WaitGroup
	for i, r := range replicas {
		wg.Go(func() { errs[i] = r.stop() })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// serving tells which namespaces each replica serves now, by ID.
func serving(replicas []*replica) serves {
	m := make(serves, len(replicas))
	for _, r := range replicas {
		m[r.id] = func(ns string) bool { return r.ring.Serves(ns, "") }
	}
	return m
}

// ringFormed reports whether every replica sees all of them and each of
// namespaces is served by exactly one replica.
func ringFormed(replicas []*replica, namespaces []string) bool {
	for _, r := range replicas {
		if len(r.ring.Members()) != len(replicas) {
			return false
		}
	}
	s := serving(replicas)
	for _, ns := range namespaces {
		if len(ownersOf(ns, s)) != 1 {
			return false
		}
	}
	return true
}

// waitForRing polls the replicas (in-process, cheap) until the ring has
// formed over namespaces, or timeout passes.
func waitForRing(ctx context.Context, replicas []*replica, namespaces []string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !ringFormed(replicas, namespaces) {
		select {
		case <-ctx.Done():
			return fmt.Errorf("the ring of %d replicas did not form within %s", len(replicas), timeout)
		case <-tick.C:
		}
	}
	return nil
}
