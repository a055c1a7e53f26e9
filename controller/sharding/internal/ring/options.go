package ring

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/ctrlkit/ctrlkit/controller/internal/leaseconfig"
	"github.com/ctrlkit/ctrlkit/controller/lease"
)

// Defaults for zero Options fields that are the ring's own (the lease's
// are lease.Config's): a drain bound of two lease durations.
const (
	DefaultDrainTimeout = 30 * time.Second
)

// Options configure a Ring member; package sharding's Options document
// each field (they are the same fields).
type Options struct {
	Name         string
	Lease        lease.Config
	DrainTimeout time.Duration
	Keys         func() ([]Key, bool)
	Hysteresis   float64
	Clock        clock.WithTicker
	Logger       logr.Logger
	Registry     prometheus.Registerer
}

// complete fills o's zero fields, the lease's through leaseconfig, and
// checks what is the ring's own: its name, its Lease's name, its ID.
func (o Options) complete() (Options, error) {
	var errs []error
	l, err := leaseconfig.Complete(o.Lease, "Options.Lease.")
	if err != nil {
		errs = append(errs, err)
	}
	o.Lease = l
	if o.DrainTimeout == 0 {
		o.DrainTimeout = DefaultDrainTimeout
	}
	if o.Hysteresis == 0 {
		o.Hysteresis = DefaultHysteresis
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.Logger.GetSink() == nil {
		o.Logger = klog.Background()
	}
	if msgs := validation.IsValidLabelValue(o.Name); o.Name == "" || len(msgs) > 0 {
		errs = append(errs, fmt.Errorf("Options.Name %q must be a non-empty label value: %s", o.Name, strings.Join(msgs, "; ")))
	}
	if err == nil {
		if msgs := validation.IsDNS1123Subdomain(o.Name + "-" + o.Lease.ID); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("the Lease name %q (Name-ID) is not a valid object name: %s", o.Name+"-"+o.Lease.ID, strings.Join(msgs, "; ")))
		}
		if strings.Contains(o.Lease.ID, ",") {
			errs = append(errs, fmt.Errorf("Options.Lease.ID %q must not contain a comma", o.Lease.ID))
		}
	}
	if o.Hysteresis < 1 {
		errs = append(errs, fmt.Errorf("Options.Hysteresis %g must be at least 1", o.Hysteresis))
	}
	if o.DrainTimeout < 0 {
		errs = append(errs, fmt.Errorf("Options.DrainTimeout %s must not be negative", o.DrainTimeout))
	}
	if len(errs) > 0 {
		return o, fmt.Errorf("sharding: invalid options: %w", errors.Join(errs...))
	}
	return o, nil
}
