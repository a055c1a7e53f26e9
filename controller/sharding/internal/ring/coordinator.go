package ring

// nextAssignmentLocked is the assignment this member should hold now, and
// false to keep the one it has.
//
// The coordinator is the live member of the smallest ID. It rebalances,
// starting from the assignment it holds (or, if it has none yet, from the
// one another live member publishes: a member that has just joined with
// the smallest ID takes over the ring's cuts, not a fresh layout), and
// publishes the result on its Lease. The others adopt what the
// coordinator's Lease says, and keep what they have while it says
// nothing. Members that see different coordinators for a while may adopt
// different assignments: the handover waits until every live member has
// acknowledged the same one, so this costs progress, never safety.
func (r *Ring) nextAssignmentLocked(peers []peer) (Assignment, bool) {
	r.coordinating = false
	if r.view[0] != r.opts.Lease.ID {
		for _, p := range peers {
			if p.id == r.view[0] {
				return r.parsePublished(p)
			}
		}
		return Assignment{}, false
	}

	prev := r.assignment
	if len(prev.Cuts) == 0 {
		for _, p := range peers { // sorted by ID, as the Leases were listed
			if a, ok := r.parsePublished(p); ok {
				prev = a
				break
			}
		}
	}
	keys, ok := r.keys()
	if !ok {
		// Until the keys are known, keep the ring's cuts as they are.
		r.coordinating = len(prev.Cuts) > 0
		return prev, r.coordinating
	}
	plan := Rebalance(prev, r.view, keys, r.opts.Hysteresis)
	if plan.Changed {
		r.metrics.rebalanced(plan.Moved)
		r.log.Info("Rebalanced the ring", "members", []string(r.view), "movedWeight", plan.Moved,
			"imbalance", Imbalance(plan.Assignment.Shares(r.view, keys)))
	}
	r.coordinating = true
	return plan.Assignment, true
}

// parsePublished reads the assignment on p's Lease; false if it has none
// or it cannot be read (logged: a member of another version may write a
// form this one does not know).
func (r *Ring) parsePublished(p peer) (Assignment, bool) {
	if p.assignment == "" {
		return Assignment{}, false
	}
	a, err := ParseAssignment(p.assignment)
	if err != nil {
		r.log.Error(err, "Ignoring the assignment on a member's Lease", "member", p.id)
		return Assignment{}, false
	}
	return a, true
}
