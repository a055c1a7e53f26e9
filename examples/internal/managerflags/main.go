package managerflags

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

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
