package deployment

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller"
)

// TestNamespaceLanes queues a busy namespace's backlog, then one key of a
// quiet namespace, and reads the order in which the controller's queue
// hands them to workers.
func TestNamespaceLanes(t *testing.T) {
	const backlog = 1000
	for _, tc := range []struct {
		name  string
		lanes *bool
		// the quiet key's position among the keys served, 0-based
		atMost, atLeast int
	}{
		{name: "default: a lane per namespace", lanes: nil, atLeast: 0, atMost: 5},
		{name: "off: first in, first out", lanes: ptr.To(false), atLeast: backlog, atMost: backlog},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset()
			factory := informers.NewSharedInformerFactory(client, 0)
			clk := clocktesting.NewFakeClock(time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC))
			c, _, err := NewController(client, factory, record.NewFakeRecorder(10), Options{
				Controller:     controller.Options[string]{Clock: clk},
				NamespaceLanes: tc.lanes,
			})
			if err != nil {
				t.Fatal(err)
			}
			q := c.Queue()
			defer q.ShutDown()
			for i := range backlog {
				q.Add(fmt.Sprintf("busy/web-%d", i))
			}
			q.Add("quiet/web-0")

			pos := -1
			for i := 0; i <= backlog; i++ {
				key, _ := q.Get()
				q.Done(key)
				if key == "quiet/web-0" {
					pos = i
					break
				}
			}
			if pos < tc.atLeast || pos > tc.atMost {
				t.Fatalf("the quiet namespace's key was served after %d of the busy namespace's %d keys, want between %d and %d", pos, backlog, tc.atLeast, tc.atMost)
			}
		})
	}
}
