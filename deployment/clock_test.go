package deployment

import (
	"testing"
	"testing/synctest"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/controllertest"
)

// TestNewControllerHasOneClock: Options.Controller.Clock times both the
// requeue for a progress deadline and the Reconciler's view of that
// deadline. A stalled rollout (no pod ever becomes available in the fake
// cluster) reports ProgressDeadlineExceeded once that clock, and only that
// clock, passes the deadline.
func TestNewControllerHasOneClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clock := clocktesting.NewFakeClock(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
		d := newDeployment("web", 2) // progressDeadlineSeconds: 600
		env := controllertest.New(t, d)
		ctrl, _, err := NewController(env.Client, env.Informers, record.NewFakeRecorder(100),
			Options{Controller: controller.Options[string]{Clock: clock}})
		if err != nil {
			t.Fatal(err)
		}
		env.Start(ctrl)

		progressing := func() (reason string, updated time.Time) {
			t.Helper()
			live, err := env.Client.AppsV1().Deployments(testNamespace).Get(env.Context(), "web", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range live.Status.Conditions {
				if c.Type == "Progressing" {
					return c.Reason, c.LastUpdateTime.Time
				}
			}
			t.Fatalf("no Progressing condition in %+v", live.Status)
			return "", time.Time{}
		}
		reason, updated := progressing()
		if reason == ReasonProgressDeadlineExceeded || !updated.Equal(clock.Now()) {
			t.Fatalf("Progressing %s at %v, want progress at the controller's clock %v", reason, updated, clock.Now())
		}

		env.Advance(time.Hour) // real time (the bubble's) passes; the controller's clock does not
		if reason, _ := progressing(); reason == ReasonProgressDeadlineExceeded {
			t.Fatal("deadline exceeded on the bubble's time, want the controller's clock only")
		}

		clock.Step(601 * time.Second)
		env.Settle()
		if reason, updated := progressing(); reason != ReasonProgressDeadlineExceeded || !updated.Equal(clock.Now()) {
			t.Errorf("Progressing %s at %v, want %s at %v", reason, updated, ReasonProgressDeadlineExceeded, clock.Now())
		}
	})
}
