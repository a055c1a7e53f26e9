package sharding_test

import (
	"context"
	"fmt"

	"github.com/go-logr/logr/funcr"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/ctrlkit/ctrlkit/controller/sharding"
)

// A member alone in its ring serves the whole hash space once it has run
// two rounds: one to join and acknowledge, one to see its own
// acknowledgement published. Run does the rounds in a real process.
func ExampleRing() {
	client := fake.NewClientset()
	ring, err := sharding.New(sharding.Options{
		Client: client, Namespace: "kube-system", Name: "deployment-controller", ID: "replica-0",
		Logger: funcr.New(func(string, string) {}, funcr.Options{}),
		// The keys to balance. Left nil, the ring watches the cluster's
		// namespaces, which needs Run; this example calls Sync by hand.
		Keys: func() ([]sharding.Key, bool) {
			return []sharding.Key{{Hash: sharding.KeyHash("default", ""), Weight: 1}}, true
		},
	})
	if err != nil {
		panic(err)
	}
	for range 2 {
		if err := ring.Sync(context.Background()); err != nil {
			panic(err)
		}
	}
	fmt.Println("members:", ring.Members())
	fmt.Println("serving:", ring.Serving())

	release, admission := ring.Acquire(sharding.KeyHash("default", "web"))
	fmt.Println("default/web:", admission)
	release()
	// Output:
	// members: [replica-0]
	// serving: [0x0000000000000000, 0x10000000000000000)
	// default/web: admitted
}
