package managerflags_test

import (
	"fmt"
	"io"

	cliflag "k8s.io/component-base/cli/flag"

	"github.com/ctrlkit/ctrlkit/controller/manager/managerflags"
)

// An operator's options embed Options and add their own flags in a section
// of their own; Parse reads the command line, Validate names bad flags.
func Example() {
	type options struct {
		managerflags.Options
		Workers int
	}
	o := options{Options: managerflags.Defaults("my-operator"), Workers: 2}
	var fss cliflag.NamedFlagSets
	o.AddFlags(&fss)
	fss.FlagSet("my operator").IntVar(&o.Workers, "workers", o.Workers, "The number of objects reconciled concurrently.")
	args := []string{"--kubeconfig", "/tmp/kubeconfig", "--leader-elect-resource-namespace", "my-system", "--workers", "4"}
	if err := managerflags.Parse("my-operator", &fss, args, io.Discard); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(o.Kubeconfig, o.Manager.Lease.Namespace, o.Manager.LeaderElection.Name, o.Workers, o.Validate())
	// Output: /tmp/kubeconfig my-system my-operator 4 <nil>
}
