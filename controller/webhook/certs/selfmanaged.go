package certs

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	admissionlisters "k8s.io/client-go/listers/admissionregistration/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/controller/internal/webhookprobe"
	"github.com/ctrlkit/ctrlkit/controller/manager"
)

// Webhooks names the webhook configurations whose caBundle the elected
// replica keeps: every webhook in each of them gets the Secret's bundle.
type Webhooks struct {
	ValidatingWebhookConfigurations []string
	MutatingWebhookConfigurations   []string
	// CustomResourceDefinitions get the bundle in
	// spec.conversion.webhook.clientConfig when their conversion strategy
	// is Webhook. They need SelfManagedOptions.CRDClient.
	CustomResourceDefinitions []string
}

// SelfManagedOptions are a Rotator's Options and the configurations that
// trust its CA.
type SelfManagedOptions struct {
	Options
	Webhooks Webhooks
	// CRDClient reads and writes the CustomResourceDefinitions named in
	// Webhooks (apiextensions.k8s.io/v1, which client-go has no typed
	// client for). Required if any are named.
	CRDClient dynamic.Interface
	// DryRunProbe, if set, makes the readiness check also wait, once,
	// until a create of this object with dryRun=All, sent through the API
	// server, has reached a handler of package admission on a path of
	// every named webhook configuration: proof that the API server has
	// loaded them, trusts the certificate and reaches the server. Give an
	// object that the webhooks match on CREATE, in a namespace they
	// match; the handlers answer it without calling Default or Validate.
	// The replica then also needs create on its resource. Behind a
	// Service the API server calls only ready endpoints, so the first
	// replica can pass only if the Service sets publishNotReadyAddresses.
	DryRunProbe *unstructured.Unstructured
}

// SelfManaged runs self-managed certificates in a manager: the Rotator on
// the elected replica, which also writes the caBundle into the named
// webhook configurations, and on every replica informers on the Secret
// (served by TLSConfig) and on those configurations (read by the
// readiness check).
type SelfManaged struct {
	opts       SelfManagedOptions
	rotator    *Rotator
	secrets    corev1listers.SecretLister
	validating admissionlisters.ValidatingWebhookConfigurationLister
	mutating   admissionlisters.MutatingWebhookConfigurationLister
	crds       cache.GenericLister         // nil without CRDs
	informers  []cache.SharedIndexInformer // the Secret's, the configurations'
	factories  []manager.InformerFactory

	// sendProbe is webhookprobe.Send; probed is set once DryRunProbe
	// reached every configuration.
	sendProbe func(context.Context, kubernetes.Interface, *unstructured.Unstructured) ([]string, error)
	probed    atomic.Bool
}

// NewSelfManaged checks opts and requests the informers it needs.
func NewSelfManaged(opts SelfManagedOptions) (*SelfManaged, error) {
	r, err := NewRotator(opts.Options)
	if err != nil {
		return nil, err
	}
	// The Secret alone, by name; the configurations are cluster-scoped and
	// few, so all of them (a field selector per name would need a factory
	// each).
	secretFactory := informers.NewSharedInformerFactoryWithOptions(opts.Client, 0,
		informers.WithNamespace(opts.Namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", opts.Name).String()
		}))
	configFactory := informers.NewSharedInformerFactory(opts.Client, 0)
	secrets := secretFactory.Core().V1().Secrets()
	validating := configFactory.Admissionregistration().V1().ValidatingWebhookConfigurations()
	mutating := configFactory.Admissionregistration().V1().MutatingWebhookConfigurations()
	s := &SelfManaged{
		opts:       opts,
		rotator:    r,
		secrets:    secrets.Lister(),
		validating: validating.Lister(),
		mutating:   mutating.Lister(),
		informers:  []cache.SharedIndexInformer{secrets.Informer(), validating.Informer(), mutating.Informer()},
		factories:  []manager.InformerFactory{manager.Factory(secretFactory), manager.Factory(configFactory)},
		sendProbe:  webhookprobe.Send,
	}
	if len(opts.Webhooks.CustomResourceDefinitions) > 0 {
		if opts.CRDClient == nil {
			return nil, errors.New("certs: CRDClient is required to write the caBundle of CustomResourceDefinitions")
		}
		crdFactory := dynamicinformer.NewDynamicSharedInformerFactory(opts.CRDClient, 0)
		crds := crdFactory.ForResource(crdResource)
		s.crds = crds.Lister()
		s.informers = append(s.informers, crds.Informer())
		s.factories = append(s.factories, manager.Factory(crdFactory))
	}
	return s, nil
}

// crdResource is apiextensions.k8s.io/v1's CustomResourceDefinitions.
var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// TLSConfig is the webhook server's TLS configuration: TLS 1.2 or newer,
// with the serving certificate read from the Secret on every handshake.
// Give it to webhook.Options.TLSConfig.
func (s *SelfManaged) TLSConfig() *tls.Config {
	return &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: GetCertificate(s.secrets, s.opts.Namespace, s.opts.Name)}
}

// SetupWithManager adds to mgr the informers (every replica), the
// rotation (the elected replica: a runnable named "webhook certificates"
// that needs leader election) and the readiness check
// "webhook-certificates", which fails until the chain mgr's webhook server
// (GetWebhookServer, which must serve TLSConfig) serves verifies against
// the caBundle of every webhook in the named configurations (and, with
// DryRunProbe, until the probe has reached them), and says why.
func (s *SelfManaged) SetupWithManager(mgr *manager.Manager) error {
	for _, f := range s.factories {
		if err := mgr.AddInformerFactory(f); err != nil {
			return fmt.Errorf("certs: %w", err)
		}
	}
	if err := mgr.Add(&keeper{s: s}); err != nil {
		return fmt.Errorf("certs: %w", err)
	}
	srv := mgr.GetWebhookServer()
	if err := mgr.AddReadyzCheck("webhook-certificates", s.trusted(srv.Addr)); err != nil {
		return fmt.Errorf("certs: %w", err)
	}
	return nil
}
