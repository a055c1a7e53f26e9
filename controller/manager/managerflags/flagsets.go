package managerflags

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/spf13/pflag"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/klog/v2"
)

// visibleLogFlags are klog's flags that kube-controller-manager still
// shows; it dropped the others (--logtostderr, --log-dir, ...) in 1.26.
var visibleLogFlags = map[string]bool{"v": true, "vmodule": true}

// AddLoggingFlags registers klog's flags on fs as kube-controller-manager
// shows them: -v/--v and --vmodule. klog's other flags are still accepted,
// so that old command lines keep working, but hidden from --help.
func AddLoggingFlags(fs *pflag.FlagSet) {
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	klogFlags.VisitAll(func(f *flag.Flag) {
		pf := pflag.PFlagFromGoFlag(f)
		if f.Name == "v" {
			pf.Shorthand = "v"
		}
		pf.Hidden = !visibleLogFlags[f.Name]
		fs.AddFlag(pf)
	})
}

// Parse parses args (without the program name) into the flags of fss, and
// checks that no positional arguments are left. Errors and usage go to
// output; the usage prints each section of fss in order, as
// kube-controller-manager's --help does. -h and --help return
// flag.ErrHelp, the standard library's, so that Main treats help alike
// whatever the command parses with.
func Parse(name string, fss *cliflag.NamedFlagSets, args []string, output io.Writer) error {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(output)
	for _, section := range fss.Order {
		fs.AddFlagSet(fss.FlagSets[section])
	}
	fs.Usage = func() {
		fmt.Fprintf(output, "Usage:\n  %s [flags]\n", name)
		cliflag.PrintSections(output, *fss, 0)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return flag.ErrHelp
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q: this command takes flags only", fs.Args())
	}
	return nil
}
