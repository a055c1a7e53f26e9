package manager

import (
	"context"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/tools/record"
)

// eventLogVerbosity is the log level of every recorded event, as in
// kube-controller-manager (StartStructuredLogging(3)).
const eventLogVerbosity = 3

// eventSettle is how long the sinks must stay idle before the broadcasters
// stop: an event recorded just before shutdown crosses two goroutines of
// client-go's broadcaster before it reaches a sink, and nothing reports
// when it has. Only the end of a shutdown waits for it.
const eventSettle = 100 * time.Millisecond

// EventRecorderFor returns a recorder of core/v1 Events from component
// name, on client-go's tools/record: the record.EventRecorder that
// controller-runtime's GetEventRecorderFor returns, the API most of
// kube-controller-manager's controllers (the Deployment controller among
// them) record with, and what kubectl describe shows. Recorders of one
// Manager share one broadcaster, which writes through Options.Client (RBAC:
// create and patch on core "events"); without a Client, events are only
// logged, at level 3. Either way they start at once and stop at the end of
// Run's shutdown, after everything else: events recorded while the
// runnables stop are written. Call Run, or the broadcaster's goroutines
// are never stopped.
//
// Events need the recorded object's kind in client-go's scheme.Scheme;
// register custom types there.
//
// As in kube-controller-manager and controller-runtime, one goroutine
// writes the events one at a time behind client-go's queue of 1,000, which
// drops, without a log line, what is recorded while it is full. A burst
// faster than the API server takes the writes is stored late, then cut:
// scalebench's rollout of 1,000 Deployments stores about four in five of
// its scaling events, up to 38 s late, on either controller.
func (m *Manager) EventRecorderFor(name string) record.EventRecorder {
	return m.events.coreV1Broadcaster().NewRecorder(scheme.Scheme, corev1.EventSource{Component: name})
}

// EventsV1RecorderFor returns a recorder of events.k8s.io/v1 Events whose
// reportingController is name, on client-go's tools/events (an
// events.EventRecorder, whose Eventf also takes a related object and an
// action). It shares EventRecorderFor's lifecycle and scheme; writes need
// RBAC create and patch on events.k8s.io "events". Prefer it in new
// controllers; use EventRecorderFor to keep a port's events as upstream
// emits them.
func (m *Manager) EventsV1RecorderFor(name string) events.EventRecorder {
	return m.events.eventsV1Broadcaster().NewRecorder(scheme.Scheme, name)
}

// eventBroadcasters owns the Manager's two event broadcasters. Each is
// created, and starts recording, when the first recorder asks for it; stop
// shuts down both for good, and a broadcaster asked for after that is
// created stopped, so that its recorders drop events instead of leaking
// goroutines.
type eventBroadcasters struct {
	client kubernetes.Interface // nil: events are only logged
	log    logr.Logger
	idle   sinkActivity

	mu       sync.Mutex
	eventsV1 events.EventBroadcaster
	coreV1   record.EventBroadcaster
	ctx      context.Context // the recording's API calls; cancelled by stop
	cancel   context.CancelFunc
	stopped  bool
}

func newEventBroadcasters(client kubernetes.Interface, log logr.Logger) *eventBroadcasters {
	e := &eventBroadcasters{client: client, log: log}
	e.ctx, e.cancel = context.WithCancel(logr.NewContext(context.Background(), log))
	return e
}

func (e *eventBroadcasters) eventsV1Broadcaster() events.EventBroadcaster {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.eventsV1 != nil {
		return e.eventsV1
	}
	var sink events.EventSink
	if e.client != nil {
		sink = &eventsV1Sink{&events.EventSinkImpl{Interface: e.client.EventsV1()}, &e.idle}
	}
	b := events.NewBroadcaster(sink)
	e.eventsV1 = b
	if e.stopped {
		b.Shutdown()
		return b
	}
	if _, err := b.StartLogging(e.log.V(eventLogVerbosity)); err != nil {
		e.log.Error(err, "Cannot log events")
	}
	if sink != nil {
		if err := b.StartRecordingToSinkWithContext(e.ctx); err != nil {
			e.log.Error(err, "Cannot record events")
		}
	}
	return b
}

func (e *eventBroadcasters) coreV1Broadcaster() record.EventBroadcaster {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.coreV1 != nil {
		return e.coreV1
	}
	// The context gives the logger; record's Shutdown, not the context,
	// ends the broadcaster.
	b := record.NewBroadcaster(record.WithContext(logr.NewContext(context.Background(), e.log)))
	e.coreV1 = b
	if e.stopped {
		b.Shutdown()
		return b
	}
	b.StartStructuredLogging(eventLogVerbosity)
	if e.client != nil {
		b.StartRecordingToSink(&coreV1Sink{&typedcorev1.EventSinkImpl{Interface: e.client.CoreV1().Events("")}, &e.idle})
	}
	return b
}

// stop waits, until deadline ends, for events recorded so far to be
// written, then stops both broadcasters. It reports whether the writes
// finished in time.
func (e *eventBroadcasters) stop(deadline context.Context) bool {
	e.mu.Lock()
	e.stopped = true
	eventsV1, coreV1 := e.eventsV1, e.coreV1
	e.mu.Unlock()
	defer e.cancel()
	if eventsV1 == nil && coreV1 == nil {
		return true
	}
	flushed := e.idle.wait(deadline, eventSettle)
	if eventsV1 != nil {
		eventsV1.Shutdown()
	}
	if coreV1 != nil {
		coreV1.Shutdown()
	}
	return flushed
}

// sinkActivity tracks the writes of the event sinks, so that stop can tell
// when they have been idle for a while.
type sinkActivity struct {
	mu       sync.Mutex
	inFlight int
	last     time.Time // when the last write ended
}

// track runs one write.
func track[T any](a *sinkActivity, write func() (T, error)) (T, error) {
	a.mu.Lock()
	a.inFlight++
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.inFlight--
		a.last = time.Now()
		a.mu.Unlock()
	}()
	return write()
}

// wait returns true once no write has been in flight for settle, counted
// from the call at the earliest, or false when ctx ends first.
func (a *sinkActivity) wait(ctx context.Context, settle time.Duration) bool {
	start := time.Now()
	tick := time.NewTicker(settle / 5)
	defer tick.Stop()
	for {
		a.mu.Lock()
		quietSince := a.last
		busy := a.inFlight > 0
		a.mu.Unlock()
		if quietSince.Before(start) {
			quietSince = start
		}
		if !busy && time.Since(quietSince) >= settle {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
}

// eventsV1Sink is client-go's events.k8s.io/v1 sink, tracked.
type eventsV1Sink struct {
	sink     events.EventSink
	activity *sinkActivity
}

func (s *eventsV1Sink) Create(ctx context.Context, ev *eventsv1.Event) (*eventsv1.Event, error) {
	return track(s.activity, func() (*eventsv1.Event, error) { return s.sink.Create(ctx, ev) })
}

func (s *eventsV1Sink) Update(ctx context.Context, ev *eventsv1.Event) (*eventsv1.Event, error) {
	return track(s.activity, func() (*eventsv1.Event, error) { return s.sink.Update(ctx, ev) })
}

func (s *eventsV1Sink) Patch(ctx context.Context, old *eventsv1.Event, data []byte) (*eventsv1.Event, error) {
	return track(s.activity, func() (*eventsv1.Event, error) { return s.sink.Patch(ctx, old, data) })
}

// coreV1Sink is client-go's core/v1 sink, tracked.
type coreV1Sink struct {
	sink     record.EventSink
	activity *sinkActivity
}

func (s *coreV1Sink) Create(ev *corev1.Event) (*corev1.Event, error) {
	return track(s.activity, func() (*corev1.Event, error) { return s.sink.Create(ev) })
}

func (s *coreV1Sink) Update(ev *corev1.Event) (*corev1.Event, error) {
	return track(s.activity, func() (*corev1.Event, error) { return s.sink.Update(ev) })
}

func (s *coreV1Sink) Patch(old *corev1.Event, data []byte) (*corev1.Event, error) {
	return track(s.activity, func() (*corev1.Event, error) { return s.sink.Patch(old, data) })
}

// leaseEventRecorder records leader election events ("became leader",
// "stopped leading") on the Lease with the Manager's core/v1 recorder,
// created on the first event so that a Manager never run starts nothing.
type leaseEventRecorder struct {
	m         *Manager
	component string
}

func (r leaseEventRecorder) Eventf(obj runtime.Object, eventType, reason, message string, args ...any) {
	r.m.EventRecorderFor(r.component).Eventf(obj, eventType, reason, message, args...)
}
