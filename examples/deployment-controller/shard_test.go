package main

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ctrlkit/ctrlkit/controller/controllertest"
	"github.com/ctrlkit/ctrlkit/controller/sharding"
)

// Two processes with --shard-ring split the namespaces between them, and
// together roll out every Deployment.
func TestShardedReplicasShareTheRollouts(t *testing.T) {
	var objects []runtime.Object
	for i := range 8 {
		d := newDeployment("rolling", "app:v2")
		d.Namespace, d.UID = fmt.Sprintf("ns-%d", i), types.UID(fmt.Sprintf("uid-%d", i))
		rs := newReplicaSet(d, "old", "app:v1", "1", 2, false)
		rs.UID = types.UID(fmt.Sprintf("rs-uid-%d", i))
		objects = append(objects, d, rs)
	}
	client := controllertest.NewClientset(objects...)
	startManager(t, client, "--shard-ring=test", "--leader-elect-retry-period=500ms")
	startManager(t, client, "--shard-ring=test", "--leader-elect-retry-period=500ms")

	ctx := context.Background()
	waitFor(t, "the two members to serve a half each", func() bool {
		leases, err := client.CoordinationV1().Leases("ctrlkit-system").List(ctx, metav1.ListOptions{LabelSelector: sharding.RingLabel + "=test"})
		if err != nil || len(leases.Items) != 2 {
			return false
		}
		halves := map[string]bool{}
		for _, l := range leases.Items {
			halves[l.Annotations[sharding.ServingAnnotation]] = true
		}
		return halves[sharding.Assign(2)[0].String()] && halves[sharding.Assign(2)[1].String()]
	})
	for i := range 8 {
		ns := fmt.Sprintf("ns-%d", i)
		waitFor(t, "a new ReplicaSet in "+ns, func() bool {
			list, err := client.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=rolling"})
			return err == nil && len(list.Items) == 2
		})
	}
}
