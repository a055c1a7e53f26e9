package manager

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	coordinationv1 "k8s.io/api/coordination/v1"
	coordinationv1beta1 "k8s.io/api/coordination/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/client-go/tools/leaderelection"
)

// CoordinatedLeaderElectionGate is the kube-apiserver feature gate that
// runs the API server's leader election controller (KEP-4355).
const CoordinatedLeaderElectionGate = "CoordinatedLeaderElection"

// CoordinatedLeaderElection makes the Manager a candidate in the API
// server's coordinated leader election (KEP-4355) instead of competing for
// the Lease itself: it registers a coordination.k8s.io/v1beta1
// LeaseCandidate named Options.Lease.ID for the Lease, with its versions,
// and leads while the API server's leader election controller names it the
// Lease's holder. When the controller names another holder (a better
// candidate appeared) or the Lease is lost, the Manager stops leading and
// Run returns ErrLeaderElectionLost, as with a plain Lease.
//
// kube-apiserver must run with the CoordinatedLeaderElection feature gate
// and serve coordination.k8s.io/v1beta1 (--runtime-config=
// coordination.k8s.io/v1beta1=true); Run fails at once with an error that
// says so when the LeaseCandidate resource is not served. With the API
// served but the gate off, nobody assigns the Lease and no candidate leads.
type CoordinatedLeaderElection struct {
	// Enabled turns coordinated election on; LeaderElection.Enabled must be
	// set too. Off, the Manager competes for the Lease itself.
	Enabled bool

	// BinaryVersion is this build's version, "1.2.3" or "v1.2.3". Required.
	BinaryVersion string
	// EmulationVersion is the version whose behaviour this build keeps.
	// Empty means BinaryVersion.
	EmulationVersion string
	// Strategy is how the API server picks among the candidates. Empty
	// means OldestEmulationVersion, the one the API server implements: the
	// candidate with the oldest emulation version, then the oldest binary
	// version, then the oldest LeaseCandidate leads, so that a rolling
	// upgrade hands over only once every candidate is new.
	Strategy coordinationv1.CoordinatedLeaseStrategy
}

// withDefaults fills the zero fields of an enabled c.
func (c CoordinatedLeaderElection) withDefaults() CoordinatedLeaderElection {
	if !c.Enabled {
		return c
	}
	if c.EmulationVersion == "" {
		c.EmulationVersion = c.BinaryVersion
	}
	if c.Strategy == "" {
		c.Strategy = coordinationv1.OldestEmulationVersion
	}
	return c
}

// check reports what is wrong in an enabled c whose candidate is id, the
// LeaseCandidate's name (empty: not known, not checked).
func (c CoordinatedLeaderElection) check(id string) []error {
	if !c.Enabled {
		return nil
	}
	var errs []error
	if c.BinaryVersion == "" {
		errs = append(errs, errors.New("LeaderElection.Coordinated.BinaryVersion is required"))
	} else if _, err := version.ParseGeneric(c.BinaryVersion); err != nil {
		errs = append(errs, fmt.Errorf("LeaderElection.Coordinated.BinaryVersion: %w", err))
	}
	if _, err := version.ParseGeneric(c.EmulationVersion); c.EmulationVersion != "" && err != nil {
		errs = append(errs, fmt.Errorf("LeaderElection.Coordinated.EmulationVersion: %w", err))
	}
	if id != "" {
		for _, msg := range validation.IsDNS1123Subdomain(id) {
			errs = append(errs, fmt.Errorf("Lease.ID %q names the LeaseCandidate with coordinated election: %s", id, msg))
		}
	}
	return errs
}

// leaseCandidateGroupVersion serves the LeaseCandidate client-go's
// NewCandidate writes.
var leaseCandidateGroupVersion = coordinationv1beta1.SchemeGroupVersion.String()

// errCoordinatedNotServed is wrapped by the error Run returns when the API
// server does not serve LeaseCandidates.
var errCoordinatedNotServed = fmt.Errorf("the API server does not serve %s leasecandidates: run kube-apiserver with --feature-gates=%s=true and --runtime-config=%s=true",
	leaseCandidateGroupVersion, CoordinatedLeaderElectionGate, leaseCandidateGroupVersion)

// checkCoordinatedServed asks discovery whether LeaseCandidates are
// served, so that a Manager on a cluster without the feature fails at once
// instead of waiting for a Lease nobody will assign.
func (m *Manager) checkCoordinatedServed() error {
	le := m.opts.LeaderElection
	if !le.Enabled || !le.Coordinated.Enabled {
		return nil
	}
	list, err := m.opts.Lease.Client.Discovery().ServerResourcesForGroupVersion(leaseCandidateGroupVersion)
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("manager: coordinated leader election: %w", errCoordinatedNotServed)
	}
	if err != nil {
		return fmt.Errorf("manager: coordinated leader election: discovering %s: %w", leaseCandidateGroupVersion, err)
	}
	if !slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == "leasecandidates" }) {
		return fmt.Errorf("manager: coordinated leader election: %w", errCoordinatedNotServed)
	}
	return nil
}

// runCoordinated keeps a LeaseCandidate registered while the elector
// follows the Lease, and stops both together: once the elector returns
// (leadership lost, or the manager stopping), the candidate stops renewing
// and is deleted, so that the API server's next pick is among live
// candidates rather than waiting for this one's renewals to lapse. The
// candidate is built here, not in New, because it starts a work queue at
// once.
func (e *elector) runCoordinated(ctx context.Context) {
	c := e.opts.Coordinated
	candidate, informers, err := leaderelection.NewCandidate(e.lease.Client, e.lease.Namespace, e.id, e.opts.Name,
		c.BinaryVersion, c.EmulationVersion, c.Strategy)
	if err != nil {
		// Returning ends the election: Run reports ErrLeaderElectionLost.
		e.logger.Error(err, "Cannot register as a coordinated leader election candidate")
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		candidate.Run(ctx)
		// Run stops the candidate's informers but does not wait for them.
		if f, ok := informers.(interface{ Shutdown() }); ok {
			f.Shutdown()
		}
	})
	e.le.Run(ctx)
	cancel()
	wg.Wait()
	e.deleteCandidate(ctx)
}

// deleteCandidate deletes this process's LeaseCandidate, within
// RenewDeadline, even though ctx has ended.
func (e *elector) deleteCandidate(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.lease.RenewDeadline)
	defer cancel()
	err := e.lease.Client.CoordinationV1beta1().LeaseCandidates(e.lease.Namespace).Delete(ctx, e.id, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		e.logger.Error(err, "Cannot delete the LeaseCandidate; the API server ignores it once its renewals lapse", "leaseCandidate", e.id)
	}
}
