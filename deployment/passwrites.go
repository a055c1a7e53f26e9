package deployment

import (
	"context"
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
)

// A pass writes its Deployment from one working copy, and, as upstream
// does, drops what each write returns. A second write of the same pass (the
// status write that ends a rollout step, after the one that recorded a new
// ReplicaSet's revision) so goes out with the resourceVersion the first one
// replaced, and the API server refuses it with 409 Conflict: upstream sends
// it, counts the conflict, and retries the Deployment through its rate
// limiter. Such a refusal is certain (the stored version is at least the one
// the first write returned), so a pass does not send the request. Inside the
// pass the write fails with the Conflict the API server would have
// answered, so the pass takes upstream's path from there; the pass itself
// then succeeds. No retry is needed: the first write changed the
// Deployment, so its update event wakes the key again, and under read your
// own writes that pass runs on a cache holding the write. What a pass
// decides is unchanged; one request and one retry a ReplicaSet creation
// fewer reach the API server and the queue.
//
// A write that returns the resourceVersion it was sent with (a fake
// clientset's tracker does) supersedes nothing, so such a server sees every
// request upstream would send.

// passWritesKey is the context key of a pass's *passWrites.
type passWritesKey struct{}

// passWrites holds the resourceVersion of the pass's Deployment that a
// write of the pass replaced, or "", and the Conflict of the write the pass
// did not send, or nil. The pass's working copy keeps the version it was
// read at, so there is at most one of each.
type passWrites struct {
	replaced string
	notSent  error
}

// withPassWrites returns ctx with an empty record of a pass's writes. A
// context without one predicts nothing: every write is sent.
func withPassWrites(ctx context.Context) context.Context {
	return context.WithValue(ctx, passWritesKey{}, &passWrites{})
}

// notePassWrite records that a write of d, the pass's working copy,
// replaced d's resourceVersion, if it did.
func notePassWrite(ctx context.Context, d, written *appsv1.Deployment, err error) {
	w, _ := ctx.Value(passWritesKey{}).(*passWrites)
	if w == nil || err != nil || written == nil || written.ResourceVersion == d.ResourceVersion {
		return
	}
	w.replaced = d.ResourceVersion
}

// supersededInPass returns the Conflict the API server would answer a write
// of d with, if a write earlier in the pass replaced d's resourceVersion.
func supersededInPass(ctx context.Context, d *appsv1.Deployment) error {
	w, _ := ctx.Value(passWritesKey{}).(*passWrites)
	if w == nil || w.replaced == "" || w.replaced != d.ResourceVersion {
		return nil
	}
	w.notSent = apierrors.NewConflict(schema.GroupResource{Group: appsv1.GroupName, Resource: "deployments"}, d.Name,
		fmt.Errorf("not sent: resourceVersion %s was replaced by this pass's own earlier write, so the API server would refuse it", d.ResourceVersion))
	return w.notSent
}

// passError is the error the pass that ended with err returns: nil if err
// is the Conflict of a write the pass did not send, err otherwise.
func passError(ctx context.Context, d *appsv1.Deployment, err error) error {
	w, _ := ctx.Value(passWritesKey{}).(*passWrites)
	if w == nil || w.notSent == nil || !errors.Is(err, w.notSent) {
		return err
	}
	klog.FromContext(ctx).V(4).Info("Deployment status write not sent: this pass already replaced its resourceVersion; the write's own event brings the next pass",
		"deployment", klog.KObj(d))
	return nil
}
