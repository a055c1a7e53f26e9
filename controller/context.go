package controller

import (
	"context"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/ctrlkit/ctrlkit/controller/internal/readyourwrites"
)

// reconcileKey is the context key of a reconcile's *reconcileState.
type reconcileKey struct{}

// reconcileState is what one reconcile's context carries: its ID, and the
// writes it records for the controller to wait for (see RecordWrite). It is
// one value so that a reconcile that records nothing costs no more than
// carrying the ID did.
type reconcileState struct {
	id types.UID
	// tracker records the writes; nil ignores them
	// (Options.DisableReadYourWrites).
	tracker *readyourwrites.Tracker
	writes  readyourwrites.Writes
}

// withReconcile returns the context and logger of one reconcile of key: a
// fresh reconcile ID and an empty write log in ctx, and log with the values
// key and reconcileID, also in ctx (logr.FromContext and klog.FromContext
// find it). tracker records the writes; nil ignores them.
func withReconcile[K comparable](ctx context.Context, log logr.Logger, key K, tracker *readyourwrites.Tracker) (context.Context, logr.Logger, *reconcileState) {
	state := &reconcileState{id: uuid.NewUUID(), tracker: tracker}
	log = log.WithValues("key", key, "reconcileID", state.id)
	return logr.NewContext(context.WithValue(ctx, reconcileKey{}, state), log), log, state
}

// reconcileFromContext returns the state of the reconcile whose context ctx
// is, or derives from; nil outside a reconcile.
func reconcileFromContext(ctx context.Context) *reconcileState {
	state, _ := ctx.Value(reconcileKey{}).(*reconcileState)
	return state
}

// ReconcileIDFromContext returns the ID of the reconcile whose context ctx
// is, or derives from: the UUID its log lines carry as "reconcileID", new
// for each attempt. It returns "" outside a reconcile. It is
// controller-runtime's function of the same name.
func ReconcileIDFromContext(ctx context.Context) types.UID {
	if state := reconcileFromContext(ctx); state != nil {
		return state.id
	}
	return ""
}

// logger returns the controller's logger with its name: Options.Logger, or
// else the logger of ctx, discarding if ctx has none.
func (c *Controller[K]) logger(ctx context.Context) logr.Logger {
	if c.log.GetSink() != nil {
		return c.log // has the name since New
	}
	return logr.FromContextOrDiscard(ctx).WithValues("controller", c.name)
}
