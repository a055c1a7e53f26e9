package ring

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
)

// ErrDrainTimeout is returned by Sync and Run when the reconciles of keys
// this member lost did not finish within Options.DrainTimeout. The member
// has stopped renewing its Lease; the process should exit.
var ErrDrainTimeout = errors.New("sharding: in-flight reconciles of lost keys did not drain in time")

// Admission is a Ring's answer to Acquire.
type Admission int

const (
	// Admitted: reconcile the key now, and call the release function when
	// the reconcile has returned.
	Admitted Admission = iota
	// Pending: the key is in this member's range but not handed over yet
	// (its previous owner has not acknowledged), or this member is fenced.
	// Try again later.
	Pending
	// NotOwned: another member's key. Drop it: its owner has it.
	NotOwned
	// Listing: the key is in the range this member serves, but an
	// informer registered by Informer has not delivered its list of the
	// range to its cache yet. Try again soon: that takes a list, not a
	// handover.
	Listing
)

// String names the admission in logs and metrics.
func (a Admission) String() string {
	switch a {
	case Admitted:
		return "admitted"
	case Pending:
		return "pending"
	case Listing:
		return "listing"
	default:
		return "not_owned"
	}
}

// Ring is one member of a ring of replicas that split the keys of their
// controllers by hash (package sharding's DESIGN.md describes the protocol).
// Run keeps its Lease and its ranges current; Acquire admits keys.
//
// Invariants, under mu: target is this member's ranges in assignment, and
// serving ⊆ target; every hash admitted and not yet released is counted in
// inFlight; a key is admitted only if it is in serving and the member is
// not fenced (its last successful renewal is less than RenewDeadline old);
// acked names an assignment for which inFlight ⊆ that assignment's ranges
// of this member held when it was set, and serving has not grown since
// except to the ranges of a published ack.
type Ring struct {
	opts      Options
	keys      func() ([]Key, bool)
	nsKeys    *namespaceKeys // the default keys; nil if Options.Keys is set
	leaseName string
	leases    coordinationv1client.LeaseInterface
	clock     clock.WithTicker
	log       logr.Logger
	metrics   *ringMetrics

	// Owned by the goroutine calling Sync.
	own      *coordinationv1.Lease // as last written or read; nil: read it first
	ownFound bool                  // own exists on the server
	observed map[string]observation
	leaving  bool
	left     bool
	failed   error

	mu               sync.Mutex
	renewedAt        time.Time // start of the last successful renewal; zero: none
	view             view
	assignment       Assignment    // adopted: computed if coordinating, else the coordinator's
	coordinating     bool          // this member publishes assignment
	target           Ranges        // this member's ranges in assignment
	serving          Ranges        // the part of target it may hand out
	acked            string        // an assignment ID
	published        string        // acked as of the last successful write
	publishedServing Ranges        // serving as of the last successful write
	publishedAssign  string        // the assignment published as coordinator, "" if none
	changed          chan struct{} // closed when informers must list again (Target)
	targetSince      time.Time
	gainPending      bool
	drainSince       time.Time // zero: nothing lost waiting to drain
	inFlight         map[uint64]int
	owned            map[uint64]struct{} // hashes admitted while serving them
	idle             chan struct{}       // signalled when inFlight becomes empty
	caches           []*listedCache      // informers whose caches gate Acquire
}

// New returns a ring member that has not joined yet: Run (or Sync) joins.
func New(opts Options) (*Ring, error) {
	opts, err := opts.complete()
	if err != nil {
		return nil, err
	}
	m, err := newRingMetrics(opts.Registry, opts.Name)
	if err != nil {
		return nil, err
	}
	r := &Ring{
		opts:      opts,
		keys:      opts.Keys,
		leaseName: opts.Name + "-" + opts.Lease.ID,
		leases:    opts.Lease.Client.CoordinationV1().Leases(opts.Lease.Namespace),
		clock:     opts.Clock,
		log:       opts.Logger.WithValues("ring", opts.Name, "member", opts.Lease.ID),
		metrics:   m,
		observed:  map[string]observation{},
		changed:   make(chan struct{}),
		inFlight:  map[uint64]int{},
		owned:     map[uint64]struct{}{},
		idle:      make(chan struct{}, 1),
	}
	if r.keys == nil {
		r.nsKeys = newNamespaceKeys(opts.Lease.Client)
		r.keys = r.nsKeys.keys
	}
	return r, nil
}

// ID is this member's identity.
func (r *Ring) ID() string { return r.opts.Lease.ID }

// Name is the ring's name (Options.Name).
func (r *Ring) Name() string { return r.opts.Name }

// NeedLeaderElection is false: every replica is a member. (A manager runs
// the ring on every replica, next to its leader election.)
func (r *Ring) NeedLeaderElection() bool { return false }

// Members is the ring's live members as this member last saw them,
// sorted; empty before the first round.
func (r *Ring) Members() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.view)
}

// Assignment is the assignment this member has adopted: the zero
// Assignment until it has seen the coordinator's.
func (r *Ring) Assignment() Assignment {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.assignment
}

// Target is this member's ranges in the assignment it has adopted, and a
// channel closed when informers must list again: the target lost ranges,
// or the member began serving ranges it gained. Informers list and watch
// the target (see ListWatch). It is empty until the member has adopted an
// assignment that gives it keys.
func (r *Ring) Target() (Ranges, <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.target, r.changed
}

// Serving is the part of the target this member hands out keys of now.
func (r *Ring) Serving() Ranges {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fencedLocked(r.clock.Now()) {
		return nil
	}
	return r.serving
}

// Acquire decides whether the key with hash h may be reconciled by this
// member now: h must be in its serving range (Pending until then) and,
// for every informer registered by Informer, in the range that informer
// has listed and delivered to its cache (Listing until then). If
// Admitted, the member counts the reconcile as in flight until release is
// called (exactly once), and hands no range over while it runs outside
// its range; otherwise release is nil.
func (r *Ring) Acquire(h uint64) (release func(), a Admission) {
	r.mu.Lock()
	defer r.mu.Unlock()
	serving := r.serving.Contains(h) && !r.fencedLocked(r.clock.Now())
	switch {
	case serving && !r.listedLocked(h):
		return nil, Listing
	case serving:
		r.inFlight[h]++
		if _, ok := r.owned[h]; !ok {
			r.owned[h] = struct{}{}
			r.metrics.keysOwned.Set(float64(len(r.owned)))
		}
		var once sync.Once
		return func() { once.Do(func() { r.release(h) }) }, Admitted
	case r.target.Contains(h):
		return nil, Pending
	default:
		return nil, NotOwned
	}
}

func (r *Ring) release(h uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.inFlight[h]--; r.inFlight[h] <= 0 {
		delete(r.inFlight, h)
	}
	if len(r.inFlight) == 0 {
		select {
		case r.idle <- struct{}{}:
		default:
		}
	}
}

// fencedLocked reports whether this member must hand out nothing: it has
// never renewed its Lease, or not for RenewDeadline, so others may soon
// take its range over.
func (r *Ring) fencedLocked(now time.Time) bool {
	return r.renewedAt.IsZero() || now.Sub(r.renewedAt) >= r.opts.Lease.RenewDeadline || r.failed != nil
}

// drainedLocked reports whether every in-flight reconcile is inside target.
func (r *Ring) drainedLocked() bool {
	for h := range r.inFlight {
		if !r.target.Contains(h) {
			return false
		}
	}
	return true
}

// Run joins the ring and keeps this member's Lease and ranges current, one
// round (Sync) per RetryPeriod, until ctx is cancelled; it runs the
// namespace informer of the default Options.Keys meanwhile. Then it leaves:
// it hands out nothing more, waits (at most DrainTimeout) for in-flight
// reconciles, and releases its Lease so that the others take its range at
// once. It returns ErrDrainTimeout if lost keys do not drain in time, or
// if leaving does not.
func (r *Ring) Run(ctx context.Context) error {
	if r.nsKeys != nil {
		keysCtx, stop := context.WithCancel(ctx)
		defer r.nsKeys.start(keysCtx)()
		defer stop()
	}
	ticker := r.clock.NewTicker(r.opts.Lease.RetryPeriod)
	defer ticker.Stop()
	for {
		if err := r.Sync(ctx); errors.Is(err, ErrDrainTimeout) {
			return err
		} else if err != nil && ctx.Err() == nil {
			r.log.Error(err, "Ring round failed; retrying")
		}
		select {
		case <-ctx.Done():
			return r.leave(context.WithoutCancel(ctx), ticker.C())
		case <-ticker.C():
		}
	}
}

// Leave makes the next rounds leave the ring: this member hands out
// nothing more and, once its in-flight reconciles have returned, releases
// its Lease. Run calls it when its context ends; tests call it with Sync.
func (r *Ring) Leave() {
	r.leaving = true
	r.mu.Lock()
	r.serving = nil
	r.mu.Unlock()
}

// Left reports whether this member has released its Lease.
func (r *Ring) Left() bool { return r.left }

// leave runs rounds until the member has left, at most DrainTimeout.
func (r *Ring) leave(ctx context.Context, tick <-chan time.Time) error {
	r.Leave()
	deadline := r.clock.After(r.opts.DrainTimeout)
	for {
		if err := r.Sync(ctx); err != nil {
			r.log.Error(err, "Leaving the ring")
		}
		if r.left {
			return nil
		}
		select {
		case <-deadline:
			r.log.Info("In-flight reconciles did not finish in time; leaving the Lease to expire")
			return ErrDrainTimeout
		case <-r.idle:
		case <-tick:
		}
	}
}

// Sync runs one round: renew this member's Lease, publishing what it has
// drained for; list the ring's Leases; then, from who is live, update the
// view, adopt the coordinator's assignment (or, as the coordinator,
// rebalance it), shrink what it serves to its new ranges, extend to all of
// them once every other live member acknowledged the assignment, and
// acknowledge the assignment itself once it has drained. Run calls it every RetryPeriod; Sync
// must not be called concurrently with itself or Run.
func (r *Ring) Sync(ctx context.Context) error {
	if r.left {
		return nil
	}
	if r.failed != nil {
		return r.failed
	}
	if r.leaving && r.idleNow() {
		return r.releaseLease(ctx)
	}
	if err := r.publish(ctx); err != nil {
		return err
	}
	list, err := r.leases.List(ctx, metav1.ListOptions{
		LabelSelector: labels.Set{RingLabel: r.opts.Name}.String(),
	})
	if err != nil {
		return fmt.Errorf("sharding: listing the ring's Leases: %w", err)
	}
	now := r.clock.Now()
	r.decide(r.observe(list.Items, now), now)
	r.metrics.update(r)
	if r.failed == nil && r.unpublished() {
		// An acknowledgement or a range served that this round decided
		// goes out now, not at the next renewal: the others' next list
		// sees it a round sooner, and a handover takes two rounds fewer.
		if err := r.publish(ctx); err != nil {
			return err
		}
	}
	return r.failed
}

// publish renews this member's Lease with its current state; on failure
// it fences itself once RenewDeadline has passed since the last success.
func (r *Ring) publish(ctx context.Context) error {
	if err := r.renew(ctx, r.clock.Now()); err != nil {
		r.mu.Lock()
		if r.fencedLocked(r.clock.Now()) {
			r.serving = nil
		}
		r.mu.Unlock()
		r.metrics.update(r)
		return fmt.Errorf("sharding: renewing Lease %s/%s: %w", r.opts.Lease.Namespace, r.leaseName, err)
	}
	return nil
}

// unpublished reports whether the Lease lags what the member has
// acknowledged, serves or assigns.
func (r *Ring) unpublished() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.acked != r.published || !r.serving.Equal(r.publishedServing) || r.assignmentToPublishLocked() != r.publishedAssign
}

// assignmentToPublishLocked is the assignment this member's Lease should
// carry: its own if it coordinates.
func (r *Ring) assignmentToPublishLocked() string {
	if !r.coordinating {
		return ""
	}
	return r.assignment.String()
}

func (r *Ring) idleNow() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.inFlight) == 0
}

// observe records what changed in the Leases and returns the live members
// other than this one. A Lease is live while it has a holder and has
// changed within its duration, on this member's clock.
func (r *Ring) observe(leases []coordinationv1.Lease, now time.Time) []peer {
	var peers []peer
	seen := make(map[string]bool, len(leases))
	for i := range leases {
		l := &leases[i]
		if l.Name == r.leaseName {
			continue
		}
		seen[l.Name] = true
		rec := leaseRecord(l)
		o, ok := r.observed[l.Name]
		if !ok || o.record != rec {
			o = observation{record: rec, seen: now}
			r.observed[l.Name] = o
		}
		holder := leaseHolder(l)
		if holder == "" || holder == r.opts.Lease.ID || now.Sub(o.seen) >= leaseDuration(l, r.opts.Lease.LeaseDuration) {
			continue
		}
		peers = append(peers, peer{id: holder, drainedFor: l.Annotations[DrainedForAnnotation], assignment: l.Annotations[AssignmentAnnotation]})
	}
	for name := range r.observed {
		if !seen[name] {
			delete(r.observed, name)
		}
	}
	slices.SortFunc(peers, func(a, b peer) int { return strings.Compare(a.id, b.id) })
	return peers
}

// decide applies one round's view of the ring.
func (r *Ring) decide(peers []peer, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fenced := r.fencedLocked(now)
	if fenced || r.leaving {
		r.serving = nil
		r.coordinating = false
	} else {
		v := make(view, 0, len(peers)+1)
		v = append(v, r.opts.Lease.ID)
		for _, p := range peers {
			v = append(v, p.id)
		}
		slices.Sort(v)
		v = slices.Compact(v)
		if !slices.Equal(v, r.view) {
			r.view = v
			r.log.Info("Ring members changed", "members", []string(v))
		}
		if next, ok := r.nextAssignmentLocked(peers); ok && next.ID() != r.assignment.ID() {
			r.setAssignmentLocked(next, now)
		}
	}

	id := r.assignment.ID()
	if id != "" && !fenced && !r.leaving && r.published == id && !r.serving.Equal(r.target) && allDrainedFor(peers, id) {
		// The caches listed the gained ranges before the old owners let
		// go, so they may lack the old owners' last writes: those ranges
		// count as listed only after a list that begins now.
		r.forgetLocked(r.serving)
		r.relistLocked()
		r.serving = r.target
		if r.gainPending {
			r.gainPending = false
			r.metrics.handover("gained", now.Sub(r.targetSince))
		}
		r.log.V(2).Info("Serving ranges", "ranges", r.serving, "members", len(r.view))
	}
	if r.acked != id && r.drainedLocked() {
		r.acked = id
		if !r.drainSince.IsZero() {
			r.metrics.handover("lost", now.Sub(r.drainSince))
			r.drainSince = time.Time{}
		}
	}
	if r.acked != id && !r.drainSince.IsZero() && now.Sub(r.drainSince) > r.opts.DrainTimeout {
		r.failed = ErrDrainTimeout
		r.serving = nil
		r.log.Error(ErrDrainTimeout, "Fencing this member", "timeout", r.opts.DrainTimeout)
	}
}

// setAssignmentLocked adopts assignment a: the target becomes this
// member's ranges in a, and what it serves shrinks to them at once.
func (r *Ring) setAssignmentLocked(a Assignment, now time.Time) {
	old := r.target
	r.assignment, r.target = a, a.RangesOf(r.opts.Lease.ID)
	r.log.V(2).Info("Adopted an assignment", "assignment", a.ID(), "ranges", r.target)
	if r.target.Equal(old) {
		return
	}
	r.serving = r.serving.Intersect(r.target)
	for h := range r.owned {
		if !r.target.Contains(h) {
			delete(r.owned, h)
		}
	}
	r.metrics.keysOwned.Set(float64(len(r.owned)))
	r.forgetLocked(r.target)
	r.targetSince = now
	r.gainPending = !r.target.Intersect(old).Equal(r.target)
	if !r.drainedLocked() && r.drainSince.IsZero() {
		r.drainSince = now
	}
	if !old.Intersect(r.target).Equal(old) {
		// The caches drop what was lost. What was gained is listed when
		// the member begins serving it.
		r.relistLocked()
	}
	r.log.Info("Ranges changed", "members", []string(r.view), "ranges", r.target)
}

// relistLocked makes every informer list its target again.
func (r *Ring) relistLocked() {
	close(r.changed)
	r.changed = make(chan struct{})
}

func allDrainedFor(peers []peer, vs string) bool {
	for _, p := range peers {
		if p.drainedFor != vs {
			return false
		}
	}
	return true
}

// renew writes this member's Lease: holder, renew time, duration, and the
// view it has drained for. On success the member may serve for another
// RenewDeadline from start, the time before the request was sent.
func (r *Ring) renew(ctx context.Context, start time.Time) error {
	r.mu.Lock()
	acked, serving, assignment := r.acked, r.serving, r.assignmentToPublishLocked()
	r.mu.Unlock()
	if r.own == nil {
		l, err := r.leases.Get(ctx, r.leaseName, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			l = &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: r.opts.Lease.Namespace, Name: r.leaseName}}
		case err != nil:
			return err
		}
		r.own, r.ownFound = l, err == nil
	}
	l := r.own.DeepCopy()
	if l.Labels == nil {
		l.Labels = map[string]string{}
	}
	l.Labels[RingLabel] = r.opts.Name
	if l.Annotations == nil {
		l.Annotations = map[string]string{}
	}
	l.Annotations[DrainedForAnnotation] = acked
	l.Annotations[ServingAnnotation] = serving.String()
	if assignment != "" {
		l.Annotations[AssignmentAnnotation] = assignment
	} else {
		delete(l.Annotations, AssignmentAnnotation)
	}
	l.Spec.RenewTime = ptr.To(metav1.NewMicroTime(start))
	if leaseHolder(l) != r.opts.Lease.ID {
		l.Spec.AcquireTime = l.Spec.RenewTime
	}
	l.Spec.HolderIdentity = ptr.To(r.opts.Lease.ID)
	l.Spec.LeaseDurationSeconds = ptr.To(int32(r.opts.Lease.LeaseDuration / time.Second))
	var written *coordinationv1.Lease
	var err error
	if r.ownFound {
		written, err = r.leases.Update(ctx, l, metav1.UpdateOptions{})
	} else {
		written, err = r.leases.Create(ctx, l, metav1.CreateOptions{})
	}
	if err != nil {
		r.own = nil // read it again next round
		return err
	}
	r.own, r.ownFound = written, true
	r.mu.Lock()
	r.renewedAt, r.published, r.publishedServing, r.publishedAssign = start, acked, serving, assignment
	r.mu.Unlock()
	return nil
}

// releaseLease gives up this member's Lease once it has drained on
// leaving: an empty holder tells the others at once that it is gone and
// holds nothing.
func (r *Ring) releaseLease(ctx context.Context) error {
	if r.own == nil {
		l, err := r.leases.Get(ctx, r.leaseName, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			r.left = true
			return nil
		}
		if err != nil {
			return err
		}
		r.own, r.ownFound = l, true
	}
	if !r.ownFound {
		r.left = true // never created: nothing to give up
		return nil
	}
	l := r.own.DeepCopy()
	l.Spec.HolderIdentity = nil
	l.Spec.RenewTime = ptr.To(metav1.NewMicroTime(r.clock.Now()))
	delete(l.Annotations, DrainedForAnnotation)
	delete(l.Annotations, ServingAnnotation)
	delete(l.Annotations, AssignmentAnnotation)
	if _, err := r.leases.Update(ctx, l, metav1.UpdateOptions{}); err != nil {
		r.own = nil
		return fmt.Errorf("sharding: releasing Lease %s/%s: %w", r.opts.Lease.Namespace, r.leaseName, err)
	}
	r.left = true
	r.mu.Lock()
	r.renewedAt = time.Time{}
	r.mu.Unlock()
	r.metrics.update(r)
	r.log.Info("Left the ring")
	return nil
}
