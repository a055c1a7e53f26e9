package controller

import (
	"sync"

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
	base logr.LogSink
	key  K

	once      sync.Once
	full      logr.LogSink // base with the values
	fullDepth logr.LogSink // full, one frame deeper, for Info and Error
}

var (
	_ logr.LogSink          = (*reconcileLogSink[string])(nil)
	_ logr.CallDepthLogSink = (*reconcileLogSink[string])(nil)
)

func (s *reconcileLogSink[K]) resolve() {
	s.once.Do(func() {
		s.full = s.base.WithValues("key", s.key, "reconcileID", uuid.NewUUID())
		s.fullDepth = withCallDepth(s.full, 1)
	})
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
func (s *reconcileLogSink[K]) Enabled(level int) bool { return s.base.Enabled(level) }

// Info logs with the key and reconcile ID.
func (s *reconcileLogSink[K]) Info(level int, msg string, keysAndValues ...any) {
	s.resolve()
	s.fullDepth.Info(level, msg, keysAndValues...)
}

// Error logs with the key and reconcile ID.
func (s *reconcileLogSink[K]) Error(err error, msg string, keysAndValues ...any) {
	s.resolve()
	s.fullDepth.Error(err, msg, keysAndValues...)
}

// WithValues returns the wrapped sink with the key, the reconcile ID and
// keysAndValues.
func (s *reconcileLogSink[K]) WithValues(keysAndValues ...any) logr.LogSink {
	s.resolve()
	return s.full.WithValues(keysAndValues...)
}

// WithName returns the wrapped sink with the key, the reconcile ID and name.
func (s *reconcileLogSink[K]) WithName(name string) logr.LogSink {
	s.resolve()
	return s.full.WithName(name)
}

// WithCallDepth returns the wrapped sink with the key, the reconcile ID and
// depth more frames to skip.
func (s *reconcileLogSink[K]) WithCallDepth(depth int) logr.LogSink {
	s.resolve()
	return withCallDepth(s.full, depth)
}
