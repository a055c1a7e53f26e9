package main

import (
	"fmt"
	"net"
	"strconv"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/controller/webhook"
	"github.com/ctrlkit/ctrlkit/controller/webhook/admission"
	"github.com/ctrlkit/ctrlkit/controller/webhook/certs"
	"github.com/ctrlkit/ctrlkit/controller/webhook/conversion"
	v1 "github.com/ctrlkit/ctrlkit/examples/crd-operator/api/v1"
	"github.com/ctrlkit/ctrlkit/examples/crd-operator/convert"
)

// webhookConfigurations is the name of the ValidatingWebhookConfiguration
// and of the MutatingWebhookConfiguration (the +kubebuilder:webhook
// markers in webhooks.go), whose caBundle the elected replica writes.
const webhookConfigurations = "webapp-operator"

// webhookOptions are the flags of the webhook server.
type webhookOptions struct {
	// BindAddress is host:port; empty serves no webhooks.
	BindAddress string
	// Namespace holds the certificates' Secret, SecretName.
	Namespace, SecretName string
	// Service is the Service in Namespace that the API server calls; its
	// DNS names are the certificate's, unless HostNames are given.
	Service   string
	HostNames []string
	// CertValidity, if set, is the lifetime of the CA and of the serving
	// certificate (tests rotate them quickly); each rotation step waits a
	// tenth of it.
	CertValidity time.Duration
	// MetricsFromSecret serves /metrics (--metrics-secure) with the same
	// certificate, which then also names MetricsService in Namespace: the
	// serverName a scraper verifies, trusting the Secret's ca.crt.
	MetricsFromSecret bool
	MetricsService    string
}

// crdName is the WebApp's CustomResourceDefinition, whose conversion
// webhook (spec.conversion) the elected replica writes the caBundle of.
const crdName = "webapps.example.ctrlkit.dev"

// newSelfManaged keeps the webhooks' certificates in the Secret; the
// metrics server may serve them too, so it comes before the manager.
func newSelfManaged(kube kubernetes.Interface, crds dynamic.Interface, o webhookOptions) (*certs.SelfManaged, error) {
	names := o.HostNames
	if len(names) == 0 {
		names = serviceNames(o.Service, o.Namespace)
	}
	if o.MetricsFromSecret {
		names = append(names, serviceNames(o.MetricsService, o.Namespace)...)
	}
	return certs.NewSelfManaged(certs.SelfManagedOptions{
		Options: certs.Options{Client: kube, Namespace: o.Namespace, Name: o.SecretName, DNSNames: names,
			CAValidity: o.CertValidity, CertValidity: o.CertValidity, Propagation: o.CertValidity / 10},
		Webhooks: certs.Webhooks{
			ValidatingWebhookConfigurations: []string{webhookConfigurations},
			MutatingWebhookConfigurations:   []string{webhookConfigurations},
			CustomResourceDefinitions:       []string{crdName},
		},
		CRDClient: crds,
	})
}

// serviceNames are the DNS names of a Service in the cluster.
func serviceNames(service, namespace string) []string {
	svc := service + "." + namespace + ".svc"
	return []string{svc, svc + ".cluster.local"}
}

// setupWebhooks serves the WebApp defaulter and validator, and the
// conversion between the WebApp's versions, on mgr's replicas with the
// self-managed certificates of sm.
func setupWebhooks(mgr *manager.Manager, kube kubernetes.Interface, o webhookOptions, sm *certs.SelfManaged) error {
	host, portText, err := net.SplitHostPort(o.BindAddress)
	if err != nil {
		return fmt.Errorf("--webhook-bind-address: %w", err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return fmt.Errorf("--webhook-bind-address: %w", err)
	}
	if port == 0 {
		port = -1 // any free port (tests); the server's Addr tells which
	}
	srv, err := webhook.NewServer(webhook.Options{Host: host, Port: port, TLSConfig: sm.TLSConfig(), Registerer: mgr.Registry()})
	if err != nil {
		return err
	}
	srv.Register(defaultPath, admission.WithDefaulter(admission.DefaulterFunc[v1.WebApp](defaultWebApp)))
	srv.Register(validatePath, admission.WithValidator(webAppValidator{kube}.validator()))
	webApps, err := convert.WebAppConverter()
	if err != nil {
		return err
	}
	converter, err := conversion.NewWebhookHandler(conversion.Options{Registerer: mgr.Registry()}, webApps)
	if err != nil {
		return err
	}
	srv.Register(conversionPath, converter)
	if err := mgr.Add(srv); err != nil { // on every replica, before the informers
		return err
	}
	return sm.SetupWithManager(mgr)
}
