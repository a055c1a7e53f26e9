package controller_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/handler"
)

// debounced runs a ConfigMap controller with opts in a synctest bubble,
// calls events with the clientset, and returns when each reconcile of
// default/cm happened, as time since events began.
func debounced(t *testing.T, opts controller.Options[string], events func(ctx context.Context, client *fake.Clientset)) []time.Duration {
	t.Helper()
	var mu sync.Mutex
	var at []time.Duration
	synctest.Test(t, func(t *testing.T) {
		client := fake.NewClientset()
		factory := informers.NewSharedInformerFactory(client, 0)
		var start time.Time
		c, err := controller.New("debounced", controller.ReconcilerFunc[string](func(_ context.Context, key string) (controller.Result, error) {
			mu.Lock()
			defer mu.Unlock()
			at = append(at, time.Since(start))
			return controller.Result{}, nil
		}), opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Watch(factory.Core().V1().ConfigMaps().Informer(), handler.ForObject(handler.ObjectKey)); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		factory.Start(ctx.Done())
		done := make(chan error)
		go func() { done <- c.Run(ctx) }()
		synctest.Wait() // synced, idle
		start = time.Now()
		events(ctx, client)
		time.Sleep(time.Minute) // virtual: every burst is over
		synctest.Wait()
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
		factory.Shutdown()
	})
	return at
}

func updateEvery(ctx context.Context, t *testing.T, client *fake.Clientset, n int, every time.Duration) {
	cm := configMap("default", "cm")
	if _, err := client.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		time.Sleep(every)
		cm.Labels = map[string]string{"step": string(rune('a' + i%26))}
		if _, err := client.CoreV1().ConfigMaps("default").Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// A burst of events for a key gives one reconcile, a quiet period after
// its last event.
func TestDebounceBurstGivesOneReconcile(t *testing.T) {
	opts := controller.Options[string]{Logger: logr.Discard(), Debounce: time.Second, DebounceMaxWait: 10 * time.Second}
	at := debounced(t, opts, func(ctx context.Context, client *fake.Clientset) {
		updateEvery(ctx, t, client, 5, 100*time.Millisecond) // create + 5 updates over 0.5s
	})
	if len(at) != 1 || at[0] < 1500*time.Millisecond || at[0] > 1600*time.Millisecond {
		t.Errorf("reconciles at %v; want one, 1s after the last event (0.5s)", at)
	}

	// Without Debounce, the same events give several reconciles.
	opts.Debounce, opts.DebounceMaxWait = 0, 0
	if at := debounced(t, opts, func(ctx context.Context, client *fake.Clientset) {
		updateEvery(ctx, t, client, 5, 100*time.Millisecond)
	}); len(at) < 2 {
		t.Errorf("without Debounce: reconciles at %v; want one per event", at)
	}
}

// A key under a constant stream of events is still reconciled: at most the
// maximum wait after the first event of each burst, as DebounceMaxWait
// says. The events come every 0.4s, which divides neither wait, so that
// none lands at the instant of a reconcile, where which of the two goes
// first would decide whether it starts the next burst.
func TestDebounceMaxWaitBoundsAStream(t *testing.T) {
	const every, maxWait = 400 * time.Millisecond, 3 * time.Second
	opts := controller.Options[string]{Logger: logr.Discard(), Debounce: time.Second, DebounceMaxWait: maxWait}
	at := debounced(t, opts, func(ctx context.Context, client *fake.Clientset) {
		updateEvery(ctx, t, client, 30, every) // the create, then an event every 0.4s for 12s
	})
	if len(at) < 4 {
		t.Fatalf("reconciles at %v; want one at least every 3s of the 12s stream", at)
	}
	burst := time.Duration(0) // the first event after the previous reconcile
	for _, r := range at[:4] {
		if r-burst > maxWait {
			t.Errorf("reconciles at %v: the one at %s came %s after its burst's first event at %s, above the maximum wait", at, r, r-burst, burst)
		}
		burst = (r/every + 1) * every
	}
}

// Debounce options are checked.
func TestDebounceOptionsValidated(t *testing.T) {
	noop := controller.ReconcilerFunc[string](func(context.Context, string) (controller.Result, error) { return controller.Result{}, nil })
	for _, o := range []controller.Options[string]{
		{Debounce: -time.Second},
		{Debounce: time.Second, DebounceMaxWait: time.Millisecond},
		{DebounceMaxWait: time.Second},
	} {
		if _, err := controller.New("bad", noop, o); err == nil {
			t.Errorf("New with Debounce %s, DebounceMaxWait %s: no error", o.Debounce, o.DebounceMaxWait)
		}
	}
}
