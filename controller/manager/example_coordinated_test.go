package manager_test

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/ctrlkit/ctrlkit/controller/lease"
	"github.com/ctrlkit/ctrlkit/controller/manager"
)

// With Coordinated, the Manager registers a LeaseCandidate with its
// versions and leads only while the API server names it the Lease's
// holder. Here the API server (a fake) does not serve LeaseCandidates, so
// Run fails at once and says what kube-apiserver needs.
func ExampleCoordinatedLeaderElection() {
	client := fake.NewClientset()
	m, err := manager.New(manager.Options{
		Logger: logr.Discard(),
		Client: client,
		Lease:  lease.Config{Namespace: "kube-system"},
		LeaderElection: manager.LeaderElection{
			Enabled: true,
			Name:    "my-operator",
			Coordinated: manager.CoordinatedLeaderElection{
				Enabled:          true,
				BinaryVersion:    "1.4.0",
				EmulationVersion: "1.3.0", // keeps 1.3's behaviour during an upgrade
			},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Run(context.Background()))
	// Output:
	// manager: coordinated leader election: the API server does not serve coordination.k8s.io/v1beta1 leasecandidates: run kube-apiserver with --feature-gates=CoordinatedLeaderElection=true and --runtime-config=coordination.k8s.io/v1beta1=true
}
