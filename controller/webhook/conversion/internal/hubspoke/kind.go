// Package hubspoke is the model behind package conversion: the versions of
// one kind, converted through the hub. Package conversion serves it;
// package conversiontest checks it.
package hubspoke

import (
	"context"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Kind is the versions of one group and kind, and which is the hub.
type Kind struct {
	GroupKind schema.GroupKind
	Hub       string
	Versions  map[string]*Version // the hub's too
}

// Version is one version's Go type and, for a spoke, its conversions.
type Version struct {
	Name string
	// New returns a new *T of the version's type T.
	New func() any
	// ToHub and FromHub convert a *T of this version to and from a new
	// hub. Nil for the hub.
	ToHub   func(ctx context.Context, obj, hub any) error
	FromHub func(ctx context.Context, hub, obj any) error
}

// Names are the versions, the hub first, then the spokes in order.
func (k *Kind) Names() []string {
	names := []string{k.Hub}
	for name := range k.Versions {
		if name != k.Hub {
			names = append(names, name)
		}
	}
	sort.Strings(names[1:])
	return names
}

// PanicError is a conversion function's panic, with its stack.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Convert converts obj, a *T of version from, to a new object of version
// to, through the hub.
func (k *Kind) Convert(ctx context.Context, obj any, from, to string) (out any, err error) {
	src, dst := k.Versions[from], k.Versions[to]
	if src == nil || dst == nil {
		return nil, fmt.Errorf("%s has no version %q", k.GroupKind, firstUnknown(k, from, to))
	}
	if from == to {
		return obj, nil
	}
	hub := obj
	if from != k.Hub {
		hub = k.Versions[k.Hub].New()
		if err := src.ToHub(ctx, obj, hub); err != nil {
			return nil, fmt.Errorf("converting %s to the hub %s: %w", from, k.Hub, err)
		}
	}
	if to == k.Hub {
		return hub, nil
	}
	out = dst.New()
	if err := dst.FromHub(ctx, hub, out); err != nil {
		return nil, fmt.Errorf("converting the hub %s to %s: %w", k.Hub, to, err)
	}
	return out, nil
}

func firstUnknown(k *Kind, from, to string) string {
	if k.Versions[from] == nil {
		return from
	}
	return to
}

// Of returns the Kind of a *conversion.Converter. Package conversion sets
// it, so that package conversiontest can check a Converter whose fields
// are not exported.
var Of func(converter any) *Kind
