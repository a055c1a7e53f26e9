package main

import (
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
)

// eventsRecordedName is the series countingRecorder adds to our
// controller's registry. Events recorded and event writes differ: client-
// go's broadcaster drops, without a word, events its one sink goroutine
// has not taken when its queue is full, so the writes depend on how fast
// the API server answers, not only on what the controller decided.
const eventsRecordedName = "scalebench_events_recorded_total"

// countingRecorder is an EventRecorder that counts the events recorded
// through it before passing them on.
type countingRecorder struct {
	record.EventRecorder
	recorded prometheus.Counter
}

// newCountingRecorder wraps r, registering its counter in reg.
func newCountingRecorder(r record.EventRecorder, reg prometheus.Registerer) *countingRecorder {
	c := &countingRecorder{EventRecorder: r, recorded: prometheus.NewCounter(prometheus.CounterOpts{
		Name: eventsRecordedName, Help: "Events our controller recorded.",
	})}
	reg.MustRegister(c.recorded)
	return c
}

func (c *countingRecorder) Event(object runtime.Object, eventtype, reason, message string) {
	c.recorded.Inc()
	c.EventRecorder.Event(object, eventtype, reason, message)
}

func (c *countingRecorder) Eventf(object runtime.Object, eventtype, reason, messageFmt string, args ...any) {
	c.recorded.Inc()
	c.EventRecorder.Eventf(object, eventtype, reason, messageFmt, args...)
}

func (c *countingRecorder) AnnotatedEventf(object runtime.Object, annotations map[string]string, eventtype, reason, messageFmt string, args ...any) {
	c.recorded.Inc()
	c.EventRecorder.AnnotatedEventf(object, annotations, eventtype, reason, messageFmt, args...)
}
