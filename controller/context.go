package controller

import (
	"context"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
)

// reconcileIDKey is the context key of a reconcile's ID.
type reconcileIDKey struct{}

// withReconcile returns the context and logger of one reconcile of key: a
// fresh reconcile ID in ctx, and log with the values key and reconcileID,
// also in ctx (logr.FromContext and klog.FromContext find it).
func withReconcile[K comparable](ctx context.Context, log logr.Logger, key K) (context.Context, logr.Logger) {
	id := uuid.NewUUID()
	log = log.WithValues("key", key, "reconcileID", id)
	return logr.NewContext(context.WithValue(ctx, reconcileIDKey{}, id), log), log
}

// ReconcileIDFromContext returns the ID of the reconcile whose context ctx
// is, or derives from: the UUID its log lines carry as "reconcileID", new
// for each attempt. It returns "" outside a reconcile. It is
// controller-runtime's function of the same name.
func ReconcileIDFromContext(ctx context.Context) types.UID {
	id, _ := ctx.Value(reconcileIDKey{}).(types.UID)
	return id
}

// logger returns the controller's logger with its name: Options.Logger, or
// else the logger of ctx, discarding if ctx has none.
func (c *Controller[K]) logger(ctx context.Context) logr.Logger {
	if c.log.GetSink() != nil {
		return c.log // has the name since New
	}
	return logr.FromContextOrDiscard(ctx).WithValues("controller", c.name)
}
