package manager

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
)

func testPod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)}}
}

// recordingRunnable records one event when it starts and one while it
// stops, through record.
func recordingRunnable(record func(obj *corev1.Pod, reason string)) RunnableFunc {
	return func(ctx context.Context) error {
		record(testPod("started"), "Started")
		<-ctx.Done()
		record(testPod("stopping"), "Stopping")
		return nil
	}
}

// Events recorded by a runnable, even while it stops, are written before
// Run returns: the broadcaster stops last.
func TestEventsV1RecorderForWritesEventsBeforeRunReturns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := fake.NewClientset()
		m := mustNew(t, Options{Logger: quiet(), Client: client})
		recorder := m.EventsV1RecorderFor("pod-controller")
		mustAdd(t, m, recordingRunnable(func(pod *corev1.Pod, reason string) {
			recorder.Eventf(pod, nil, corev1.EventTypeNormal, reason, "Sync", "pod %s", pod.Name)
		}))
		runUntilIdle(t, m)
		list, err := client.EventsV1().Events("default").List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range list.Items {
			if e.ReportingController != "pod-controller" || e.Action != "Sync" || e.Note != "pod "+e.Regarding.Name {
				t.Errorf("event %+v: want reportingController pod-controller, action Sync, a note naming the pod", e)
			}
			got = append(got, e.Regarding.Name+" "+e.Reason)
		}
		slices.Sort(got)
		if want := []string{"started Started", "stopping Stopping"}; !slices.Equal(got, want) {
			t.Errorf("events.k8s.io events %q, want %q", got, want)
		}
	})
}

func TestEventRecorderForWritesCoreEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := fake.NewClientset()
		m := mustNew(t, Options{Logger: quiet(), Client: client})
		recorder := m.EventRecorderFor("deployment-controller")
		mustAdd(t, m, recordingRunnable(func(pod *corev1.Pod, reason string) {
			recorder.Eventf(pod, corev1.EventTypeWarning, reason, "pod %s", pod.Name)
		}))
		runUntilIdle(t, m)
		list, err := client.CoreV1().Events("default").List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range list.Items {
			if e.Source.Component != "deployment-controller" || e.Type != corev1.EventTypeWarning {
				t.Errorf("event %+v: want source deployment-controller, type Warning", e)
			}
			got = append(got, e.InvolvedObject.Name+" "+e.Reason)
		}
		slices.Sort(got)
		if want := []string{"started Started", "stopping Stopping"}; !slices.Equal(got, want) {
			t.Errorf("core/v1 events %q, want %q", got, want)
		}
	})
}

// Without a Client, events are logged at level 3 and nothing else happens.
func TestEventsWithoutClientAreLogged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var logs []string
		logger := funcr.New(func(prefix, args string) {
			mu.Lock()
			defer mu.Unlock()
			logs = append(logs, args)
		}, funcr.Options{Verbosity: eventLogVerbosity})
		m := mustNew(t, Options{Logger: logger})
		m.EventsV1RecorderFor("a").Eventf(testPod("p"), nil, corev1.EventTypeNormal, "ReasonV1", "Act", "note")
		m.EventRecorderFor("b").Eventf(testPod("p"), corev1.EventTypeNormal, "ReasonCore", "message")
		runUntilIdle(t, m)
		mu.Lock()
		defer mu.Unlock()
		all := strings.Join(logs, "\n")
		for _, reason := range []string{"ReasonV1", "ReasonCore"} {
			if !strings.Contains(all, `"reason"="`+reason+`"`) {
				t.Errorf("no log of the event %s in:\n%s", reason, all)
			}
		}
	})
}

// With Options.Client and no LeaderElection.EventRecorder, leadership
// changes are recorded on the Lease, the last one during shutdown.
func TestLeaderElectionEventsDefaultToTheManagersRecorder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := withOptimisticConcurrency(fake.NewClientset())
		opts := leOptions(client, "a", true)
		opts.Lease.Client, opts.Client = nil, client
		m := mustNew(t, opts)
		ctx, cancel := context.WithCancel(t.Context())
		done := runInBackground(ctx, m)
		<-m.Elected()
		// Core events are named after the object and the time: on the
		// bubble's still clock, the second would clash with the first.
		time.Sleep(time.Second)
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Run: %v", err)
		}
		list, err := client.CoreV1().Events(opts.Lease.Namespace).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range list.Items {
			if e.InvolvedObject.Kind != "Lease" || e.InvolvedObject.Name != opts.LeaderElection.Name || e.Source.Component != opts.LeaderElection.Name {
				t.Errorf("event %+v: want it on the Lease, from component %s", e, opts.LeaderElection.Name)
			}
			got = append(got, e.Message)
		}
		slices.Sort(got)
		if want := []string{"a became leader", "a stopped leading"}; !slices.Equal(got, want) {
			t.Errorf("lease events %q, want %q", got, want)
		}
	})
}

// A recorder asked for after Run drops its events without starting
// anything (goleak checks).
func TestEventRecorderAfterRunDropsEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := fake.NewClientset()
		m := mustNew(t, Options{Logger: quiet(), Client: client})
		runUntilIdle(t, m)
		m.EventsV1RecorderFor("late").Eventf(testPod("p"), nil, corev1.EventTypeNormal, "Late", "Act", "note")
		m.EventRecorderFor("late").Eventf(testPod("p"), corev1.EventTypeNormal, "Late", "message")
		synctest.Wait()
		if n := len(client.Actions()); n != 0 {
			t.Errorf("%d API calls after Run, want none: %v", n, client.Actions())
		}
	})
}
