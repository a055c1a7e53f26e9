package otlptracing

import (
	"context"
	"io"

	"go.opentelemetry.io/otel/trace"
	"k8s.io/client-go/kubernetes"

	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/controller/manager/managerflags"
)

// Traced is an example binary's options: it makes the client, and holds
// the --otlp-endpoint flag and the manager options its provider goes into.
type Traced interface {
	Client(userAgent string) (kubernetes.Interface, error)
	Traced() (*Options, *manager.Options)
}

// RunManager is managerflags.Run with tracing: it parses args, puts the
// TracerProvider of --otlp-endpoint into the manager options (so that the
// client made next traces its requests too), runs managerflags.RunManager,
// and then flushes the last spans.
func RunManager[O Traced](ctx context.Context, args []string, stdout io.Writer, component string,
	parse func(args []string, output io.Writer) (O, error),
	newManager func(ctx context.Context, o O, client kubernetes.Interface) (*manager.Manager, error),
) error {
	o, err := parse(args, stdout)
	if err != nil {
		return err
	}
	flag, mgrOpts := o.Traced()
	return flag.Run(ctx, component, func(tp trace.TracerProvider) error {
		mgrOpts.TracerProvider = tp
		return managerflags.RunManager(ctx, o, component, newManager)
	})
}
