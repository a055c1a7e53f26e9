// Package leaseconfig fills and checks a lease.Config, once for leader
// election and shard rings alike.
package leaseconfig

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/tools/leaderelection"

	"github.com/ctrlkit/ctrlkit/controller/lease"
)

// Complete returns c with its zero fields defaulted, or every way in which
// it breaks lease.Config's invariants. field prefixes the field names in
// errors ("LeaderElection.", "Options.Lease."). The client and namespace are
// checked too: every holder needs them.
func Complete(c lease.Config, field string) (lease.Config, error) {
	if c.LeaseDuration == 0 {
		c.LeaseDuration = lease.DefaultLeaseDuration
	}
	if c.RenewDeadline == 0 {
		c.RenewDeadline = lease.DefaultRenewDeadline
	}
	if c.RetryPeriod == 0 {
		c.RetryPeriod = lease.DefaultRetryPeriod
	}
	var errs []error
	if c.Client == nil {
		errs = append(errs, fmt.Errorf("%sClient is required", field))
	}
	if c.Namespace == "" {
		errs = append(errs, fmt.Errorf("%sNamespace is required", field))
	}
	if c.LeaseDuration < time.Second || c.LeaseDuration%time.Second != 0 {
		errs = append(errs, fmt.Errorf("%sLeaseDuration %s must be whole seconds, at least one: the Lease stores seconds", field, c.LeaseDuration))
	}
	if c.RenewDeadline <= 0 || c.RenewDeadline >= c.LeaseDuration {
		errs = append(errs, fmt.Errorf("%sRenewDeadline %s must be positive and below LeaseDuration %s", field, c.RenewDeadline, c.LeaseDuration))
	}
	// client-go stretches each wait by up to JitterFactor; the stretched
	// wait must still fit in the renew deadline.
	if c.RetryPeriod <= 0 || time.Duration(leaderelection.JitterFactor*float64(c.RetryPeriod)) >= c.RenewDeadline {
		errs = append(errs, fmt.Errorf("%sRetryPeriod %s must be positive and, times %.1f, below RenewDeadline %s", field, c.RetryPeriod, leaderelection.JitterFactor, c.RenewDeadline))
	}
	if len(errs) > 0 {
		return c, errors.Join(errs...)
	}
	if c.ID == "" {
		host, err := os.Hostname()
		if err != nil {
			return c, fmt.Errorf("%sID is empty and the host name is unknown: %w", field, err)
		}
		c.ID = strings.ToLower(host) + "-" + string(uuid.NewUUID())
	}
	return c, nil
}
