package envtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/ctrlkit/ctrlkit/controller/internal/webhookprobe"
)

// WebhookInstallOptions say which webhook configurations
// Environment.InstallWebhooks installs, where the test serves their
// webhooks, and with what certificate.
type WebhookInstallOptions struct {
	// Paths are manifest files, or directories of them (not recursive;
	// .yaml, .yml or .json), as controller-gen writes them. Their
	// ValidatingWebhookConfiguration and MutatingWebhookConfiguration
	// documents are installed; others (a Service) are skipped.
	Paths []string
	// ValidatingWebhooks and MutatingWebhooks are installed too.
	ValidatingWebhooks []*admissionregistrationv1.ValidatingWebhookConfiguration
	MutatingWebhooks   []*admissionregistrationv1.MutatingWebhookConfiguration

	// Addr is the webhook server's host:port, as webhook.Server.Addr
	// gives it once it listens (controller-runtime's LocalServingHost and
	// LocalServingPort). Every webhook is called at https://Addr with its
	// Service's or URL's path. Required.
	Addr string

	// CABundle is written into every webhook. Nil means the environment's
	// CA, which signed the certificate in Environment.WebhookCertDir.
	CABundle []byte
	// SelfManaged leaves the caBundle to certs.SelfManaged, which writes
	// it when it is told the configurations' names: the production path.
	// InstallWebhooks then also waits for that.
	SelfManaged bool

	// DryRunProbe is an object that a webhook of every configuration
	// matches on CREATE, in a namespace they match, e.g. a valid custom
	// object. InstallWebhooks creates it with dryRun=All until a handler
	// of package admission on a path of each configuration has answered
	// it. Required if there are webhook configurations.
	DryRunProbe *unstructured.Unstructured

	// ConversionPath, if set, is the path of the conversion webhook (the
	// handler of conversion.NewWebhookHandler): every CRD of
	// Options.CRDPaths whose spec.conversion.strategy is Webhook then calls
	// https://Addr/ConversionPath, with the caBundle as for the
	// configurations, and InstallWebhooks waits until the API server has
	// converted an object of each through it and back: a dry-run create,
	// at a served version that is not the storage version, of
	// DryRunProbe if it is of the CRD's kind and at such a version, else
	// of an empty object (which a schema with required fields rejects),
	// which the API server converts to the storage version and back.
	ConversionPath string
}

// WebhookCertDir is a directory with tls.crt and tls.key, a serving
// certificate for 127.0.0.1 and localhost that the API server trusts
// through the caBundle InstallWebhooks writes by default: give it to
// webhook.Options.CertDir (controller-runtime's LocalServingCertDir).
func (env *Environment) WebhookCertDir() string { return env.webhookCertDir }

// InstallWebhooks installs the webhook configurations of opts, each
// webhook calling the server at opts.Addr, and returns once a real
// request has gone through the API server to a handler of every
// configuration: a dry-run create of opts.DryRunProbe, answered by the
// handlers of package admission with a mark that the API server passes
// back. So a configuration the API server has not loaded yet, a caBundle
// it does not trust (or none yet) and a server it cannot reach all keep
// it waiting, even under failurePolicy Ignore. Start the webhook server
// (and with SelfManaged its certs.SelfManaged) first. It waits at most a
// minute, less if ctx ends sooner; an error says what the probe last met.
// A configuration that exists already is replaced. With
// opts.ConversionPath it also points the conversion webhooks of the CRDs
// of Options.CRDPaths at the server, and waits until each has converted a
// probe both ways.
func (env *Environment) InstallWebhooks(ctx context.Context, opts WebhookInstallOptions) error {
	if _, _, err := net.SplitHostPort(opts.Addr); err != nil {
		return fmt.Errorf("install webhooks: Addr: %w", err)
	}
	if opts.SelfManaged && opts.CABundle != nil {
		return errors.New("install webhooks: CABundle and SelfManaged exclude each other")
	}
	if opts.ConversionPath != "" && !strings.HasPrefix(opts.ConversionPath, "/") {
		return fmt.Errorf("install webhooks: ConversionPath %q does not start with /", opts.ConversionPath)
	}
	validating, mutating, err := readWebhookConfigurations(opts.Paths)
	if err != nil {
		return fmt.Errorf("install webhooks: %w", err)
	}
	validating = append(validating, opts.ValidatingWebhooks...)
	mutating = append(mutating, opts.MutatingWebhooks...)
	admissionWebhooks := len(validating)+len(mutating) > 0
	if admissionWebhooks && opts.DryRunProbe == nil {
		return errors.New("install webhooks: DryRunProbe is required")
	}
	if !admissionWebhooks && opts.ConversionPath == "" {
		return errors.New("install webhooks: no webhook configuration and no ConversionPath")
	}
	bundle := opts.CABundle
	if bundle == nil && !opts.SelfManaged {
		bundle = env.restConfig.CAData
	}
	point := func(cc *admissionregistrationv1.WebhookClientConfig) {
		url := "https://" + opts.Addr + webhookprobe.Path(*cc)
		cc.Service, cc.URL = nil, &url
		if !opts.SelfManaged {
			cc.CABundle = bundle
		}
	}
	var configs []webhookprobe.Configuration
	api := env.client.AdmissionregistrationV1()
	for _, c := range validating {
		c = c.DeepCopy()
		for i := range c.Webhooks {
			point(&c.Webhooks[i].ClientConfig)
		}
		if err := createOrReplace(ctx, "ValidatingWebhookConfiguration", c, api.ValidatingWebhookConfigurations()); err != nil {
			return err
		}
		configs = append(configs, webhookprobe.Validating(c))
	}
	for _, c := range mutating {
		c = c.DeepCopy()
		for i := range c.Webhooks {
			point(&c.Webhooks[i].ClientConfig)
		}
		if err := createOrReplace(ctx, "MutatingWebhookConfiguration", c, api.MutatingWebhookConfigurations()); err != nil {
			return err
		}
		configs = append(configs, webhookprobe.Mutating(c))
	}
	ctx, cancel := context.WithTimeout(ctx, webhookWaitTimeout)
	defer cancel()
	if opts.ConversionPath != "" {
		var caBundle []byte
		if !opts.SelfManaged {
			caBundle = bundle
		}
		if err := env.installConversionWebhooks(ctx, "https://"+opts.Addr+opts.ConversionPath, caBundle, opts.DryRunProbe); err != nil {
			return fmt.Errorf("install webhooks: %w", err)
		}
	}
	if !admissionWebhooks {
		return nil
	}
	err = env.waitFor(ctx, "a dry-run request to reach the webhooks", func(ctx context.Context) error {
		reached, err := webhookprobe.Send(ctx, env.client, opts.DryRunProbe)
		if missing := webhookprobe.Unreached(configs, reached); missing != "" {
			if err == nil {
				err = errors.New("the API server admitted it without calling them")
			}
			err = fmt.Errorf("the probe reached no webhook of %s: %w", missing, err)
			if apierrors.IsInvalid(err) {
				// The probe itself is wrong: waiting cannot help.
				return permanentError{err}
			}
			return err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("install webhooks: %w", err)
	}
	fmt.Fprintf(env.log, "envtest: %d webhook configurations installed and reached at %s\n", len(configs), opts.Addr)
	return nil
}

// webhookWaitTimeout bounds InstallWebhooks' wait: with the server
// running, a probe goes through in milliseconds, and self-managed
// certificates take seconds to be written.
const webhookWaitTimeout = time.Minute

// webhookConfiguration is what createOrReplace needs of a configuration
// and of its client.
type webhookConfiguration interface {
	*admissionregistrationv1.ValidatingWebhookConfiguration | *admissionregistrationv1.MutatingWebhookConfiguration
	metav1.Object
	runtime.Object
}

type webhookConfigurationClient[T webhookConfiguration] interface {
	Create(context.Context, T, metav1.CreateOptions) (T, error)
	Get(context.Context, string, metav1.GetOptions) (T, error)
	Update(context.Context, T, metav1.UpdateOptions) (T, error)
}

// createOrReplace creates c, of kind, or replaces the configuration of its
// name.
func createOrReplace[T webhookConfiguration](ctx context.Context, kind string, c T, client webhookConfigurationClient[T]) error {
	_, err := client.Create(ctx, c, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		var existing T
		if existing, err = client.Get(ctx, c.GetName(), metav1.GetOptions{}); err == nil {
			c.SetResourceVersion(existing.GetResourceVersion())
			_, err = client.Update(ctx, c, metav1.UpdateOptions{})
		}
	}
	if err != nil {
		return fmt.Errorf("install %s %s: %w", kind, c.GetName(), err)
	}
	return nil
}

// readWebhookConfigurations reads the webhook configurations in paths,
// files or directories as readCRDs takes them, skipping other kinds.
func readWebhookConfigurations(paths []string) (validating []*admissionregistrationv1.ValidatingWebhookConfiguration, mutating []*admissionregistrationv1.MutatingWebhookConfiguration, err error) {
	files, err := manifestFiles(paths)
	if err != nil {
		return nil, nil, err
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, err
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			var obj map[string]any
			if err := dec.Decode(&obj); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", f, err)
			}
			u := unstructured.Unstructured{Object: obj}
			if obj == nil || u.GroupVersionKind().GroupVersion() != admissionregistrationv1.SchemeGroupVersion {
				continue
			}
			switch u.GetKind() {
			case "ValidatingWebhookConfiguration":
				c := new(admissionregistrationv1.ValidatingWebhookConfiguration)
				if err = runtime.DefaultUnstructuredConverter.FromUnstructured(obj, c); err == nil {
					validating = append(validating, c)
				}
			case "MutatingWebhookConfiguration":
				c := new(admissionregistrationv1.MutatingWebhookConfiguration)
				if err = runtime.DefaultUnstructuredConverter.FromUnstructured(obj, c); err == nil {
					mutating = append(mutating, c)
				}
			}
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %s %s: %w", f, u.GetKind(), u.GetName(), err)
			}
		}
	}
	return validating, mutating, nil
}
