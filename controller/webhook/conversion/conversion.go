package conversion

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/ctrlkit/ctrlkit/controller/webhook/conversion/internal/hubspoke"
)

// Hub marks the hub version's type, for spokes that convert themselves
// (Convertible). controller-runtime's Hub without runtime.Object: no
// scheme is involved.
type Hub interface {
	Hub()
}

// Convertible is a spoke's type that converts itself to and from the hub,
// as controller-runtime's Convertible does: ConvertTo fills the hub dst
// from the spoke, ConvertFrom fills the spoke from the hub src. Register
// it with NewConvertibleSpoke.
type Convertible interface {
	ConvertTo(dst Hub) error
	ConvertFrom(src Hub) error
}

// SpokeConverter converts one spoke version to and from the hub H. Make
// one with NewSpokeConverter or NewConvertibleSpoke.
type SpokeConverter[H any] struct {
	version *hubspoke.Version
	err     error
}

// NewSpokeConverter converts the spoke version's type S to and from the
// hub H with two functions, which can live outside the API packages.
// hubToSpoke fills a new S from a hub; spokeToHub fills a new H from a
// spoke.
func NewSpokeConverter[H, S any](version string,
	hubToSpoke func(ctx context.Context, src *H, dst *S) error,
	spokeToHub func(ctx context.Context, src *S, dst *H) error,
) SpokeConverter[H] {
	if hubToSpoke == nil || spokeToHub == nil {
		return SpokeConverter[H]{err: fmt.Errorf("version %q: a conversion function is nil", version)}
	}
	return SpokeConverter[H]{version: &hubspoke.Version{
		Name: version,
		New:  func() any { return new(S) },
		ToHub: func(ctx context.Context, obj, hub any) error {
			return spokeToHub(ctx, obj.(*S), hub.(*H))
		},
		FromHub: func(ctx context.Context, hub, obj any) error {
			return hubToSpoke(ctx, hub.(*H), obj.(*S))
		},
	}}
}

// NewConvertibleSpoke converts the spoke version's type S with its own
// ConvertTo and ConvertFrom methods (on *S); *H must implement Hub:
//
//	conversion.NewConvertibleSpoke[v1.Widget, v1alpha1.Widget]("v1alpha1")
func NewConvertibleSpoke[H, S any, PS interface {
	*S
	Convertible
}](version string) SpokeConverter[H] {
	if _, ok := any(new(H)).(Hub); !ok {
		return SpokeConverter[H]{err: fmt.Errorf("version %q converts itself, but the hub %T does not implement conversion.Hub", version, new(H))}
	}
	return SpokeConverter[H]{version: &hubspoke.Version{
		Name: version,
		New:  func() any { return new(S) },
		ToHub: func(_ context.Context, obj, hub any) error {
			return PS(obj.(*S)).ConvertTo(hub.(Hub))
		},
		FromHub: func(_ context.Context, hub, obj any) error {
			return PS(obj.(*S)).ConvertFrom(hub.(Hub))
		},
	}}
}

// Converter converts the versions of one group and kind to each other
// through the hub. Make one with NewHubSpokeConverter and serve it with
// NewWebhookHandler.
type Converter struct {
	kind *hubspoke.Kind
}

func init() {
	hubspoke.Of = func(c any) *hubspoke.Kind { return c.(*Converter).kind }
}

// NewHubSpokeConverter returns the Converter of hub's group and kind, whose
// hub is hub's version with type H, and whose spokes are the others. Any
// version converts to any other through the hub. It fails if there is no
// spoke, a version is no DNS-1035 label (as a CRD's versions are), a
// version is given twice, or a SpokeConverter could not be made.
func NewHubSpokeConverter[H any](hub schema.GroupVersionKind, spokes ...SpokeConverter[H]) (*Converter, error) {
	k := &hubspoke.Kind{
		GroupKind: hub.GroupKind(),
		Hub:       hub.Version,
		Versions:  map[string]*hubspoke.Version{hub.Version: {Name: hub.Version, New: func() any { return new(H) }}},
	}
	var errs []error
	if hub.Kind == "" {
		errs = append(errs, errors.New("the kind is empty"))
	}
	if len(spokes) == 0 {
		errs = append(errs, errors.New("there is no spoke: a kind of one version needs no conversion"))
	}
	if msgs := validation.IsDNS1035Label(hub.Version); len(msgs) > 0 {
		errs = append(errs, fmt.Errorf("the hub version %q: %s", hub.Version, strings.Join(msgs, "; ")))
	}
	for _, s := range spokes {
		switch {
		case s.err != nil:
			errs = append(errs, s.err)
		case s.version == nil:
			errs = append(errs, errors.New("a SpokeConverter is its zero value: make it with NewSpokeConverter or NewConvertibleSpoke"))
		case k.Versions[s.version.Name] != nil:
			errs = append(errs, fmt.Errorf("version %q is given twice", s.version.Name))
		default:
			if msgs := validation.IsDNS1035Label(s.version.Name); len(msgs) > 0 {
				errs = append(errs, fmt.Errorf("the spoke version %q: %s", s.version.Name, strings.Join(msgs, "; ")))
			}
			k.Versions[s.version.Name] = s.version
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("conversion: %s (hub %s of type %v): %w", hub.GroupKind(), hub.Version, reflect.TypeFor[H](), err)
	}
	return &Converter{kind: k}, nil
}
