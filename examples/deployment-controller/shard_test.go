package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ctrlkit/ctrlkit/controller/controllertest"
	"github.com/ctrlkit/ctrlkit/controller/sharding"

	"github.com/ctrlkit/ctrlkit/internal/testutil"
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
	// The Lease annotation a member publishes what it serves in, and the
	// halves of a ring of two that balances no keys.
	const servingAnnotation = "ctrlkit.io/shard-serving"
	lower, upper := "[0x0000000000000000, 0x8000000000000000)", "[0x8000000000000000, 0x10000000000000000)"
	testutil.Eventually(t, 30*time.Second, "the two members to serve a half each", testutil.True(func() bool {
		leases, err := client.CoordinationV1().Leases("ctrlkit-system").List(ctx, metav1.ListOptions{LabelSelector: sharding.RingLabel + "=test"})
		if err != nil || len(leases.Items) != 2 {
			return false
		}
		halves := map[string]bool{}
		for _, l := range leases.Items {
			halves[l.Annotations[servingAnnotation]] = true
		}
		return halves[lower] && halves[upper]
	}))
	for i := range 8 {
		ns := fmt.Sprintf("ns-%d", i)
		testutil.Eventually(t, 30*time.Second, "a new ReplicaSet in "+ns, testutil.True(func() bool {
			list, err := client.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=rolling"})
			return err == nil && len(list.Items) == 2
		}))
	}
}
