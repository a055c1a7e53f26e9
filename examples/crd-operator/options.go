package main

import (
	"errors"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/util/validation"
	cliflag "k8s.io/component-base/cli/flag"

	"github.com/ctrlkit/ctrlkit/controller/manager/managerflags"
	"github.com/ctrlkit/ctrlkit/controller/storagemigration"
)

// component names the process in its user agent, events and Lease.
const component = "webapp-operator"

// options are the command's flags.
type options struct {
	managerflags.Options
	// RegistryNamespace holds one ConfigMap per WebApp.
	RegistryNamespace string
	// ConcurrentSyncs is the number of workers.
	ConcurrentSyncs int
	// Webhooks configure the defaulting and validating webhooks.
	Webhooks webhookOptions
	// MigrateStorage moves the WebApps stored at v1alpha1 to v1 once the
	// API server stores v1, and prunes the CRD's storedVersions
	// (migration.go), by MigrationMethod.
	MigrateStorage  bool
	MigrationMethod storagemigration.Method
}

// migrationMethods are the values of --storage-migration-method.
var migrationMethods = map[string]storagemigration.Method{
	"auto": storagemigration.Auto, "storage-version-migration": storagemigration.StorageVersionMigration,
	"list-and-patch": storagemigration.ListAndPatch,
}

// parseOptions parses args (without the program name). Usage and parse
// errors go to output; -h and --help return flag.ErrHelp.
func parseOptions(args []string, output io.Writer) (*options, error) {
	o := &options{Options: managerflags.Defaults(component), RegistryNamespace: "webapp-registry", ConcurrentSyncs: 2,
		Webhooks: webhookOptions{Namespace: "ctrlkit-system", SecretName: "webapp-operator-webhook-certs", Service: "webapp-operator-webhook",
			MetricsService: "webapp-operator-metrics"}}
	o.Manager.Lease.Namespace = "ctrlkit-system"
	var fss cliflag.NamedFlagSets
	o.AddFlags(&fss)
	fs := fss.FlagSet("webapp operator")
	fs.StringVar(&o.RegistryNamespace, "registry-namespace", o.RegistryNamespace, "The namespace of the registry: one ConfigMap per WebApp, deleted with it.")
	fs.IntVar(&o.ConcurrentSyncs, "concurrent-syncs", o.ConcurrentSyncs, "The number of WebApps reconciled concurrently.")
	mf := fss.FlagSet("storage migration")
	mf.BoolVar(&o.MigrateStorage, "migrate-storage", true, "On the elected replica, once the API server stores WebApps at v1 and converts through the webhook, rewrite those stored at v1alpha1 at v1 and prune the CRD's status.storedVersions to [v1].")
	method := "auto"
	mf.StringVar(&method, "storage-migration-method", method, "How --migrate-storage rewrites: auto (a StorageVersionMigration where storagemigration.k8s.io/v1 is served, else list-and-patch), storage-version-migration (kube-controller-manager's migrator runs it), or list-and-patch (the operator patches each WebApp).")
	wf := fss.FlagSet("webhooks")
	wf.StringVar(&o.Webhooks.BindAddress, "webhook-bind-address", "", "The host:port of the webhook server, e.g. :9443; empty serves no webhooks. Install manifests/service.yaml and manifests/webhook/ with it.")
	wf.StringVar(&o.Webhooks.Namespace, "webhook-namespace", o.Webhooks.Namespace, "The namespace of the webhook's Service and of the Secret holding its self-managed certificates.")
	wf.StringVar(&o.Webhooks.SecretName, "webhook-cert-secret", o.Webhooks.SecretName, "The Secret holding the webhook's CA and serving certificate, created and rotated by the elected replica.")
	wf.StringVar(&o.Webhooks.Service, "webhook-service", o.Webhooks.Service, "The Service the API server calls the webhooks through; its DNS names are the certificate's.")
	wf.StringSliceVar(&o.Webhooks.HostNames, "webhook-host-names", nil, "The certificate's names instead of the Service's (an IP address for a url clientConfig).")
	wf.BoolVar(&o.Webhooks.MetricsFromSecret, "metrics-cert-from-webhook-secret", false, "Serve /metrics (--metrics-secure) with the webhook's certificate, which then also names --metrics-service; scrapers trust the Secret's ca.crt. Needs --webhook-bind-address.")
	wf.StringVar(&o.Webhooks.MetricsService, "metrics-service", o.Webhooks.MetricsService, "The Service, in --webhook-namespace, that scrapers call /metrics through, with --metrics-cert-from-webhook-secret.")
	wf.DurationVar(&o.Webhooks.CertValidity, "webhook-cert-validity", 0, "The lifetime of the webhook's CA and serving certificate; 0 means 10 years and 1 year. For tests of rotation.")
	// --shard-ring: replicas split the WebApps by namespace (run.go).
	o.Manager.Sharding.BindFlags(fss.FlagSet("sharding"))
	if err := managerflags.Parse(component, &fss, args, output); err != nil {
		return nil, err
	}
	var errs []error
	var ok bool
	if o.MigrationMethod, ok = migrationMethods[method]; !ok {
		errs = append(errs, fmt.Errorf("--storage-migration-method %q: want auto, storage-version-migration or list-and-patch", method))
	}
	if o.ConcurrentSyncs < 1 {
		errs = append(errs, fmt.Errorf("--concurrent-syncs must be at least 1, got %d", o.ConcurrentSyncs))
	}
	for _, msg := range validation.IsDNS1123Label(o.RegistryNamespace) {
		errs = append(errs, fmt.Errorf("--registry-namespace %q: %s", o.RegistryNamespace, msg))
	}
	if o.Webhooks.MetricsFromSecret {
		if o.Webhooks.BindAddress == "" {
			errs = append(errs, errors.New("--metrics-cert-from-webhook-secret needs --webhook-bind-address: the webhooks' certificates are served"))
		}
		if !o.Manager.MetricsTLS.SecureServing {
			errs = append(errs, errors.New("--metrics-cert-from-webhook-secret needs --metrics-secure"))
		}
		if o.Manager.MetricsTLS.CertDir != "" {
			errs = append(errs, errors.New("--metrics-cert-from-webhook-secret and --metrics-cert-path are two sources of one certificate: give one"))
		}
	}
	errs = append(errs, o.Validate())
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("invalid flags: %w", err)
	}
	return o, nil
}
