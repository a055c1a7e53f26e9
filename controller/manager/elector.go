package manager

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/util/retry"

	"github.com/ctrlkit/ctrlkit/controller/lease"
)

// leaderHealthTimeout is how long past a missed renewal the leader still
// reports healthy, as in kube-controller-manager: after that /healthz fails
// so that the kubelet restarts a process stuck without its lease.
const leaderHealthTimeout = 20 * time.Second

// elector wraps client-go's LeaderElector on a LeaseLock.
//
// client-go's own ReleaseOnCancel releases the Lease as soon as its context
// is cancelled, even if code guarded by the lease is still running. The
// Manager instead keeps renewing during shutdown and releases the Lease
// itself (release) only after every leader runnable has stopped.
type elector struct {
	id      string
	opts    LeaderElection
	lease   lease.Config // completed: client, namespace, ID and timings set
	lock    *resourcelock.LeaseLock
	le      *leaderelection.LeaderElector
	started chan struct{} // closed by OnStartedLeading
	logger  logr.Logger
}

func newElector(opts LeaderElection, lc lease.Config, logger logr.Logger) (*elector, error) {
	e := &elector{
		id:      lc.ID,
		opts:    opts,
		lease:   lc,
		started: make(chan struct{}),
		logger:  logger,
		lock: &resourcelock.LeaseLock{
			LeaseMeta: metav1.ObjectMeta{Namespace: lc.Namespace, Name: opts.Name},
			Client:    lc.Client.CoordinationV1(),
			LockConfig: resourcelock.ResourceLockConfig{
				Identity:      lc.ID,
				EventRecorder: opts.EventRecorder,
			},
		},
	}
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: e.lock,
		// The name labels leader_election_master_status: the Lease's name,
		// as in kube-controller-manager and controller-runtime.
		Name:          opts.Name,
		LeaseDuration: lc.LeaseDuration,
		RenewDeadline: lc.RenewDeadline,
		RetryPeriod:   lc.RetryPeriod,
		// Coordinated, the elector never takes the Lease: it renews it
		// only while the API server names it the holder.
		Coordinated: opts.Coordinated.Enabled,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) { close(e.started) },
			// Run notices the end of leadership when run returns.
			OnStoppedLeading: func() {},
			OnNewLeader: func(id string) {
				logger.Info("Observed leader", "lease", lc.Namespace+"/"+opts.Name, "leader", id, "self", id == lc.ID)
			},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("manager: leader election: %w", err)
	}
	e.le = le
	return e, nil
}

// run campaigns for the Lease, holds it until ctx is cancelled or renewal
// fails, and returns without releasing it.
func (e *elector) run(ctx context.Context) {
	if e.opts.Coordinated.Enabled {
		e.runCoordinated(ctx)
		return
	}
	e.le.Run(ctx)
}

// healthCheck fails when this process leads but has not renewed its Lease
// for longer than leaderHealthTimeout past its expiry.
func (e *elector) healthCheck(*http.Request) error { return e.le.Check(leaderHealthTimeout) }

// release gives up the Lease if this candidate still holds it, so that a
// standby need not wait LeaseDuration. Call it only after run has returned:
// LeaseLock is not safe for concurrent use. A conflict means the Lease
// changed between Get and Update: it reads the Lease again.
func (e *elector) release(ctx context.Context) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		rec, _, err := e.lock.Get(ctx)
		if err != nil {
			return err
		}
		if rec.HolderIdentity != e.id {
			return nil // someone else holds it: nothing of ours to give up
		}
		now := metav1.NewTime(time.Now())
		return e.lock.Update(ctx, resourcelock.LeaderElectionRecord{
			// An empty holder with the shortest duration tells candidates the
			// Lease is free now.
			LeaseDurationSeconds: 1,
			AcquireTime:          now,
			RenewTime:            now,
			LeaderTransitions:    rec.LeaderTransitions,
		})
	})
	if err != nil {
		return fmt.Errorf("manager: releasing lease: %w", err)
	}
	return nil
}
