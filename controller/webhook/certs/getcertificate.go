package certs

import (
	"crypto/tls"
	"fmt"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/types"
	corev1listers "k8s.io/client-go/listers/core/v1"
)

// GetCertificate returns a tls.Config.GetCertificate that serves the pair
// in the Secret namespace/name, read from lister (an informer's cache) on
// every handshake. A rotated certificate is served as soon as the informer
// sees it, with no wait for a mounted volume to sync. The pair is parsed
// once per version of the Secret.
func GetCertificate(lister corev1listers.SecretLister, namespace, name string) func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	type parsed struct {
		uid  types.UID
		rv   string
		cert *tls.Certificate
	}
	var last atomic.Pointer[parsed]
	return func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
		secret, err := lister.Secrets(namespace).Get(name)
		if err != nil {
			return nil, fmt.Errorf("serving certificate: %w", err)
		}
		if p := last.Load(); p != nil && p.uid == secret.UID && p.rv == secret.ResourceVersion {
			return p.cert, nil
		}
		pair, err := tls.X509KeyPair(secret.Data[keyCert], secret.Data[keyKey])
		if err != nil {
			return nil, fmt.Errorf("serving certificate in Secret %s/%s: %w", namespace, name, err)
		}
		last.Store(&parsed{uid: secret.UID, rv: secret.ResourceVersion, cert: &pair})
		return &pair, nil
	}
}

// CABundle is the caBundle to write into the webhook configurations and
// CRD conversion settings: every CA the Secret's serving certificates may
// be signed by, as PEM. It is nil if the Secret holds none.
func CABundle(lister corev1listers.SecretLister, namespace, name string) ([]byte, error) {
	secret, err := lister.Secrets(namespace).Get(name)
	if err != nil {
		return nil, err
	}
	return secret.Data[keyCABundle], nil
}
