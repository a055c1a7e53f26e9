package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubesharding "k8s.io/apimachinery/pkg/sharding"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// shardNamespaces are the sharded demo's namespaces, --namespaces of them
// from the first. The ring cuts the hash space where the cluster's
// namespaces are (these, and the control plane's own such as kube-system),
// so that each replica holds about as many.
var shardNamespaces = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot",
	"golf", "hotel", "india", "juliett", "kilo", "lima"}

// ringFormTimeout bounds how long the replicas may take to split the hash
// space: a few retry periods per member that joins.
const ringFormTimeout = 30 * time.Second

// demoShards is the demo with --shards: f.shards replicas of ctrlkit's
// Deployment controller in this process, each caching and reconciling the
// namespaces of its part of the hash space, roll one Deployment in each of
// f.namespaces namespaces.
func demoShards(ctx context.Context, cfg *rest.Config, f flags) (err error) {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ringNS, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "ctrlkit-demo-ring-"},
	}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create the ring's namespace: %w", err)
	}
	created := []string{ringNS.Name}
	// Deferred first, so run last: the replicas have left the ring (and
	// released their Leases) before their namespaces go.
	defer func() { err = errors.Join(err, deleteNamespaces(client, created)) }()
	namespaces := shardNamespaces[:f.namespaces]
	for _, ns := range namespaces {
		if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{
			ObjectMeta: metav1.ObjectMeta{Name: ns},
		}, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create namespace %s: %w", ns, err)
		}
		created = append(created, ns)
	}

	began := time.Now()
	replicas, err := startReplicas(ctx, cfg, ringNS.Name, f.shards)
	if err != nil {
		return fmt.Errorf("start the sharded replicas: %w", err)
	}
	defer func() {
		fmt.Printf("\nStopping the %d replicas (each drains, then releases its Lease)...\n", len(replicas))
		stopErr := stopReplicas(replicas)
		// A ring's Run returns nil once it has left and released its Lease.
		if stopErr == nil {
			fmt.Printf("All %d replicas have left the ring and released their Leases.\n", len(replicas))
		}
		err = errors.Join(err, stopErr)
	}()
	if err := waitForRing(ctx, replicas, namespaces, ringFormTimeout); err != nil {
		return err
	}
	fmt.Printf("Deployment controller: ctrlkit's, %d sharded replicas in this process; ring %q formed in %s (Leases in namespace %s):\n",
		len(replicas), ringName, time.Since(began).Round(10*time.Millisecond), ringNS.Name)
	if err := renderReplicas(os.Stdout, replicaRows(namespaces, serving(replicas))); err != nil {
		return err
	}
	if honoured, err := serverShards(ctx, client); err != nil {
		return err
	} else if honoured {
		fmt.Println("Each replica's informers list and watch only its namespaces: kube-apiserver honours the shard selector.")
	} else {
		fmt.Println("kube-apiserver ignores the shard selector (ShardedListAndWatch off): each replica's informers filter on the client side.")
	}

	watch, stopWatch, err := startShardWatch(ctx, client, namespaces, replicas)
	if err != nil {
		return err
	}
	defer stopWatch()

	gens := map[string]int64{}
	for _, ns := range namespaces {
		d, err := client.AppsV1().Deployments(ns).Create(ctx, demoDeployment(int32(f.replicas), "nginx:1.27"), metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("create deployment in %s: %w", ns, err)
		}
		gens[ns] = d.Generation
	}
	fmt.Printf("\nCreated deployment %q in %d namespaces: %d replicas of nginx:1.27 each.\n", demoName, len(namespaces), f.replicas)
	if err := watch.waitRollouts(ctx, gens, f.timeout, os.Stdout); err != nil {
		return err
	}

	fmt.Printf("\nRolling every deployment %q to nginx:1.28 (maxSurge 25%%, maxUnavailable 25%%)...\n", demoName)
	for _, ns := range namespaces {
		if gens[ns], err = setImage(ctx, client, ns, demoName, "nginx:1.28"); err != nil {
			return fmt.Errorf("roll deployment in %s: %w", ns, err)
		}
	}
	if err := watch.waitRollouts(ctx, gens, f.timeout, os.Stdout); err != nil {
		return err
	}

	fmt.Println("\nFinal state, by replica:")
	return renderReplicas(os.Stdout, replicaRows(namespaces, serving(replicas)))
}

// serverShards reports whether the API server applies shard selectors
// (feature gate ShardedListAndWatch): a list it filtered says so in
// ListMeta.ShardInfo.
func serverShards(ctx context.Context, client kubernetes.Interface) (bool, error) {
	list, err := client.AppsV1().Deployments(metav1.NamespaceAll).List(ctx, metav1.ListOptions{
		ShardSelector: kubesharding.NewSelector(kubesharding.ShardRangeRequirement{
			Key: "object.metadata.namespace", Start: "0x0000000000000000", End: "0x10000000000000000",
		}).String(),
		Limit: 1,
	})
	if err != nil {
		return false, fmt.Errorf("list with a shard selector: %w", err)
	}
	return list.ShardInfo != nil, nil
}

// deleteNamespaces deletes the namespaces, with a fresh context: the
// demo's may be why it is leaving.
func deleteNamespaces(client kubernetes.Interface, names []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var errs []error
	for _, ns := range names {
		if err := client.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete namespace %s: %w", ns, err))
		}
	}
	return errors.Join(errs...)
}
