// Package pki issues CA and serving certificates: those that package
// webhook/certs keeps in a Secret, and envtest's throwaway ones. It uses crypto/x509 directly because client-go's
// cert.NewSelfSignedCACert fixes a ten-year validity and reads the wall
// clock, and rotation needs both set; PEM encoding is client-go's.
package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"slices"
	"time"

	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// Backdate is how far before its issue a certificate is valid, so that a
// client whose clock is a little behind accepts it at once.
const Backdate = 5 * time.Minute

// Pair is a certificate and its key, parsed and as PEM.
type Pair struct {
	Cert            *x509.Certificate
	Key             crypto.Signer
	CertPEM, KeyPEM []byte
}

// IssuedAt is when c was issued.
func IssuedAt(c *x509.Certificate) time.Time { return c.NotBefore.Add(Backdate) }

// NewCA returns a self-signed CA valid for validity from now.
func NewCA(name string, now time.Time, validity time.Duration) (*Pair, error) {
	tmpl := &x509.Certificate{
		Subject:               pkix.Name{CommonName: fmt.Sprintf("%s-ca@%d", name, now.Unix())},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	return issue(tmpl, nil, now, validity)
}

// NewServing returns a serving certificate for names signed by ca. A name
// that is an IP address (a URL clientConfig such as https://127.0.0.1:9443)
// becomes an IP SAN, the others DNS SANs.
func NewServing(ca *Pair, names []string, now time.Time, validity time.Duration) (*Pair, error) {
	tmpl := &x509.Certificate{
		Subject:     pkix.Name{CommonName: names[0]},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	return issue(tmpl, ca, now, validity)
}

// Names are the SANs of c as NewServing was given them, DNS names first.
func Names(c *x509.Certificate) []string {
	names := slices.Clone(c.DNSNames)
	for _, ip := range c.IPAddresses {
		names = append(names, ip.String())
	}
	return names
}

// issue signs tmpl with ca's key, or with its own new key if ca is nil.
func issue(tmpl *x509.Certificate, ca *Pair, now time.Time, validity time.Duration) (*Pair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, err
	}
	tmpl.SerialNumber = serial.Add(serial, big.NewInt(1))
	tmpl.NotBefore = now.Add(-Backdate).UTC()
	tmpl.NotAfter = now.Add(validity).UTC()
	parent, signer := tmpl, crypto.Signer(key)
	if ca != nil {
		parent, signer = ca.Cert, ca.Key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), signer)
	if err != nil {
		return nil, err
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	certPEM, err := cert.EncodeCertificates(c)
	if err != nil {
		return nil, err
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return nil, err
	}
	return &Pair{Cert: c, Key: key, CertPEM: certPEM, KeyPEM: keyPEM}, nil
}

// ParsePair parses a certificate (the first of certPEM) and its key.
func ParsePair(certPEM, keyPEM []byte) (*Pair, error) {
	certs, err := cert.ParseCertsPEM(certPEM)
	if err != nil {
		return nil, err
	}
	key, err := keyutil.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		return nil, err
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("a %T cannot sign", key)
	}
	return &Pair{Cert: certs[0], Key: signer, CertPEM: certPEM, KeyPEM: keyPEM}, nil
}
