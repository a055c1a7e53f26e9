package manager_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/ctrlkit/ctrlkit/controller/manager"
)

// A controller records events.k8s.io/v1 events with a recorder from the
// manager; events recorded while it stops are still written, since the
// manager stops its event broadcaster last.
func ExampleManager_EventsV1RecorderFor() {
	client := fake.NewClientset()
	mgr, err := manager.New(manager.Options{Client: client})
	if err != nil {
		fmt.Println(err)
		return
	}
	recorder := mgr.EventsV1RecorderFor("pod-controller")
	started := make(chan struct{})
	mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		close(started)
		<-ctx.Done()
		recorder.Eventf(pod("a"), nil, corev1.EventTypeNormal, "Stopped", "Shutdown", "pod-controller stopped watching %s", "a")
		return nil
	}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- mgr.Run(ctx) }()
	<-started
	cancel()
	if err := <-done; err != nil {
		fmt.Println(err)
		return
	}
	events, _ := client.EventsV1().Events("default").List(context.Background(), metav1.ListOptions{})
	for _, e := range events.Items {
		fmt.Println(e.ReportingController, e.Reason, e.Regarding.Name+":", e.Note)
	}
	// Output: pod-controller Stopped a: pod-controller stopped watching a
}
