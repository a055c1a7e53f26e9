package certs

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/cert"

	"github.com/ctrlkit/ctrlkit/controller/internal/webhookprobe"
)

// trusted is the readiness check of SelfManaged: it fetches the chain the
// webhook server at addr() serves, as the API server would, and verifies
// it against the caBundle of every webhook in the named configurations,
// for the host name the API server calls. It names each webhook that would
// not trust it, and why.
func (s *SelfManaged) trusted(addr func() string) func(*http.Request) error {
	return func(req *http.Request) error {
		a := addr()
		if a == "" {
			return errors.New("the webhook server is not listening yet")
		}
		if _, err := s.secrets.Secrets(s.opts.Namespace).Get(s.opts.Name); err != nil {
			return fmt.Errorf("no certificate to serve yet: %w", err)
		}
		chain, err := servedChain(req.Context(), a)
		if err != nil {
			return err
		}
		var problems []string
		check := func(kind, name string, webhook string, cc admissionv1.WebhookClientConfig) {
			if err := verify(chain, cc); err != nil {
				problems = append(problems, fmt.Sprintf("webhook %s of %s %s: %v", webhook, kind, name, err))
			}
		}
		for _, name := range s.opts.Webhooks.ValidatingWebhookConfigurations {
			cfg, err := s.validating.Get(name)
			if err != nil {
				problems = append(problems, err.Error())
				continue
			}
			for _, w := range cfg.Webhooks {
				check("ValidatingWebhookConfiguration", name, w.Name, w.ClientConfig)
			}
		}
		for _, name := range s.opts.Webhooks.MutatingWebhookConfigurations {
			cfg, err := s.mutating.Get(name)
			if err != nil {
				problems = append(problems, err.Error())
				continue
			}
			for _, w := range cfg.Webhooks {
				check("MutatingWebhookConfiguration", name, w.Name, w.ClientConfig)
			}
		}
		for _, name := range s.opts.Webhooks.CustomResourceDefinitions {
			obj, err := s.crds.Get(name)
			if err != nil {
				problems = append(problems, err.Error())
				continue
			}
			crd, ok := obj.(*unstructured.Unstructured)
			if !ok {
				continue
			}
			if cc, err := conversionClientConfig(crd); err != nil {
				problems = append(problems, fmt.Sprintf("conversion webhook of CustomResourceDefinition %s: %v", name, err))
			} else if cc != nil {
				check("CustomResourceDefinition", name, "conversion", *cc)
			}
		}
		if len(problems) > 0 {
			return errors.New("the served certificate is not trusted by " + strings.Join(problems, "; "))
		}
		if s.opts.DryRunProbe != nil && !s.probed.Load() {
			if err := s.probe(req.Context()); err != nil {
				return err
			}
			s.probed.Store(true)
		}
		return nil
	}
}

// probe sends DryRunProbe through the API server and fails unless it
// reached a webhook of every named configuration.
func (s *SelfManaged) probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var configs []webhookprobe.Configuration
	for _, name := range s.opts.Webhooks.ValidatingWebhookConfigurations {
		if cfg, err := s.validating.Get(name); err == nil {
			configs = append(configs, webhookprobe.Validating(cfg))
		}
	}
	for _, name := range s.opts.Webhooks.MutatingWebhookConfigurations {
		if cfg, err := s.mutating.Get(name); err == nil {
			configs = append(configs, webhookprobe.Mutating(cfg))
		}
	}
	reached, err := s.sendProbe(ctx, s.opts.Client, s.opts.DryRunProbe)
	if missing := webhookprobe.Unreached(configs, reached); missing != "" {
		if err == nil {
			err = errors.New("the API server admitted it without calling them")
		}
		return fmt.Errorf("a dry-run create of the probe %s reached no webhook of %s: %w", s.opts.DryRunProbe.GetKind(), missing, err)
	}
	return nil
}

// servedChain is the certificate chain the server at addr serves. It does
// not verify it: verify does, against each caBundle.
func servedChain(ctx context.Context, addr string) ([]*x509.Certificate, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	d := tls.Dialer{Config: &tls.Config{InsecureSkipVerify: true}} //nolint:gosec // the chain is verified below, per caBundle
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("fetching the served certificate: %w", err)
	}
	defer conn.Close()
	return conn.(*tls.Conn).ConnectionState().PeerCertificates, nil
}

// verify checks chain against cc's caBundle for the host the API server
// calls: the Service's DNS name, or the URL's host.
func verify(chain []*x509.Certificate, cc admissionv1.WebhookClientConfig) error {
	if len(cc.CABundle) == 0 {
		return errors.New("no caBundle")
	}
	roots, err := cert.NewPoolFromBytes(cc.CABundle)
	if err != nil {
		return fmt.Errorf("caBundle: %w", err)
	}
	var host string
	switch {
	case cc.Service != nil:
		host = cc.Service.Name + "." + cc.Service.Namespace + ".svc"
	case cc.URL != nil:
		u, err := url.Parse(*cc.URL)
		if err != nil {
			return fmt.Errorf("url: %w", err)
		}
		host = u.Hostname()
	default:
		return errors.New("neither service nor url")
	}
	intermediates := x509.NewCertPool()
	for _, c := range chain[1:] {
		intermediates.AddCert(c)
	}
	_, err = chain[0].Verify(x509.VerifyOptions{DNSName: host, Roots: roots, Intermediates: intermediates})
	return err
}
