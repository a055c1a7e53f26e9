package deployment

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A pass writes its Deployment from one working copy, and, as upstream
// does, drops what each write returns. A second write of the same pass (the
// status write that ends a rollout step, after the one that recorded a new
// ReplicaSet's revision) so goes out with the resourceVersion the first one
// replaced, and the API server refuses it with 409 Conflict: upstream sends
// it, counts the conflict, and retries the Deployment through its rate
// limiter. Such a refusal is certain (the stored version is at least the one
// the first write returned), so a pass does not send the request: it fails
// with the Conflict the API server would have answered, and the controller
// retries as upstream does. What a pass decides is unchanged; one request a
// ReplicaSet creation fewer reaches the API server.
//
// A write that returns the resourceVersion it was sent with (a fake
// clientset's tracker does) supersedes nothing, so such a server sees every
// request upstream would send.

// passWritesKey is the context key of a pass's *passWrites.
type passWritesKey struct{}

// passWrites holds the resourceVersion of the pass's Deployment that a
// write of the pass replaced, or "". The pass's working copy keeps the
// version it was read at, so there is at most one.
type passWrites struct {
	replaced string
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
	return apierrors.NewConflict(schema.GroupResource{Group: appsv1.GroupName, Resource: "deployments"}, d.Name,
		fmt.Errorf("not sent: resourceVersion %s was replaced by this pass's own earlier write, so the API server would refuse it", d.ResourceVersion))
}
