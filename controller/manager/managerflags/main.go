package managerflags

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"k8s.io/client-go/kubernetes"

	"github.com/ctrlkit/ctrlkit/controller/manager"
)

// Main is the body of each example binary's main: it runs run with a context
// cancelled on SIGINT/SIGTERM, the command line and stdout, and exits 1 with
// the error, prefixed by name, when run fails (-h is not a failure).
func Main(name string, run func(ctx context.Context, args []string, stdout io.Writer) error) {
	err := run(manager.SetupSignalHandler(), os.Args[1:], os.Stdout)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// Run is the body of each example binary's run: it parses args with parse
// (usage and errors to stdout), then runs RunManager.
func Run[O clientMaker](ctx context.Context, args []string, stdout io.Writer, component string,
	parse func(args []string, output io.Writer) (O, error),
	newManager func(ctx context.Context, o O, client kubernetes.Interface) (*manager.Manager, error),
) error {
	o, err := parse(args, stdout)
	if err != nil {
		return err
	}
	return RunManager(ctx, o, component, newManager)
}

// RunManager connects to the API server as component with o's client,
// builds the manager with newManager and runs it until ctx is cancelled.
func RunManager[O clientMaker](ctx context.Context, o O, component string,
	newManager func(ctx context.Context, o O, client kubernetes.Interface) (*manager.Manager, error),
) error {
	client, err := o.Client(component)
	if err != nil {
		return err
	}
	mgr, err := newManager(ctx, o, client)
	if err != nil {
		return err
	}
	return mgr.Run(ctx)
}

// clientMaker is a binary's options: they make its client.
type clientMaker interface {
	Client(userAgent string) (kubernetes.Interface, error)
}
