package controller

import (
	"sync/atomic"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/util/uuid"
)

// reconcileLogSink is the sink of one reconcile's logger: the controller's
// sink plus the values key and reconcileID. It adds them, and makes the
// UUID, only when something is logged: most reconciles log nothing at the
// enabled verbosity, and should not pay for formatting or randomness.
//
// Info and Error are one call frame deeper than on the wrapped sink, which
// callDepth compensates for when the sink supports it.
type reconcileLogSink[K comparable] struct {
	parent *reconcileParent[K] // its base is the wrapped sink
	key    K
	full   atomic.Pointer[fullSinks] // nil until first needed
}

// fullSinks are the controller's sink with a reconcile's values.
type fullSinks struct {
	full      logr.LogSink // base with the values
	fullDepth logr.LogSink // full, one frame deeper, for Info and Error
}

var (
	_ logr.LogSink          = (*reconcileLogSink[string])(nil)
	_ logr.CallDepthLogSink = (*reconcileLogSink[string])(nil)
)

// resolve returns the sinks with the values, making them the first time.
// Concurrent first calls agree on one reconcile ID.
func (s *reconcileLogSink[K]) resolve() *fullSinks {
	if f := s.full.Load(); f != nil {
		return f
	}
	full := s.parent.base.WithValues("key", s.key, "reconcileID", uuid.NewUUID())
	f := &fullSinks{full: full, fullDepth: withCallDepth(full, 1)}
	if s.full.CompareAndSwap(nil, f) {
		return f
	}
	return s.full.Load()
}

func withCallDepth(sink logr.LogSink, depth int) logr.LogSink {
	if cd, ok := sink.(logr.CallDepthLogSink); ok {
		return cd.WithCallDepth(depth)
	}
	return sink
}

// Init does nothing: the wrapped sink was initialised with the controller's
// logger.
func (s *reconcileLogSink[K]) Init(logr.RuntimeInfo) {}

// Enabled asks the wrapped sink, without adding the values.
func (s *reconcileLogSink[K]) Enabled(level int) bool { return s.parent.base.Enabled(level) }

// Info logs with the key and reconcile ID.
func (s *reconcileLogSink[K]) Info(level int, msg string, keysAndValues ...any) {
	s.resolve().fullDepth.Info(level, msg, keysAndValues...)
}

// Error logs with the key and reconcile ID.
func (s *reconcileLogSink[K]) Error(err error, msg string, keysAndValues ...any) {
	s.resolve().fullDepth.Error(err, msg, keysAndValues...)
}

// WithValues returns the wrapped sink with the key, the reconcile ID and
// keysAndValues.
func (s *reconcileLogSink[K]) WithValues(keysAndValues ...any) logr.LogSink {
	return s.resolve().full.WithValues(keysAndValues...)
}

// WithName returns the wrapped sink with the key, the reconcile ID and name.
func (s *reconcileLogSink[K]) WithName(name string) logr.LogSink {
	return s.resolve().full.WithName(name)
}

// WithCallDepth returns the wrapped sink with the key, the reconcile ID and
// depth more frames to skip.
func (s *reconcileLogSink[K]) WithCallDepth(depth int) logr.LogSink {
	return withCallDepth(s.resolve().full, depth)
}
