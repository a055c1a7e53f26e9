package envtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// pki is the key material of one control plane instance, written to files
// that the components read.
type pki struct {
	caPEM []byte // trusts the API server's serving certificate

	servingCertFile string
	servingKeyFile  string
	saKeyFile       string // signs service account tokens, and verifies them
	tokenFile       string // static tokens, one line per user

	adminToken string
}

// writePKI creates a throwaway CA, a serving certificate for 127.0.0.1 and
// localhost, a service account signing key and an admin token, all in dir.
// Nothing outlives the instance, so the keys are generated fresh each time.
//
// The keys are P-256: client-go's GenerateSelfSignedCertKey would make the
// CA and the certificate in one call, but with two RSA-2048 keys, which
// took 0.25 to 1 s per start on a busy 2-core machine (at 86e5170, with
// and without -race), against a few milliseconds for these.
func writePKI(dir string) (*pki, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	ca, err := cert.NewSelfSignedCACert(cert.Config{CommonName: "ctrlkit-local-ca"}, caKey)
	if err != nil {
		return nil, err
	}
	servingKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	// client-go has no call that signs a certificate with a given CA.
	now := time.Now()
	servingDER, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(7 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:     []string{"localhost"},
	}, ca, servingKey.Public(), caKey)
	if err != nil {
		return nil, err
	}
	serving, err := x509.ParseCertificate(servingDER)
	if err != nil {
		return nil, err
	}
	servingPEM, err := cert.EncodeCertificates(serving)
	if err != nil {
		return nil, err
	}
	servingKeyPEM, err := keyutil.MarshalPrivateKeyToPEM(servingKey)
	if err != nil {
		return nil, err
	}
	caPEM, err := cert.EncodeCertificates(ca)
	if err != nil {
		return nil, err
	}
	// kube-apiserver reads the public key from the private key's file.
	saKey, err := keyutil.MakeEllipticPrivateKeyPEM()
	if err != nil {
		return nil, err
	}
	tokenBytes := make([]byte, 24)
	if _, err := rand.Read(tokenBytes); err != nil {
		return nil, err
	}

	p := &pki{
		caPEM:           caPEM,
		servingCertFile: filepath.Join(dir, "serving.crt"),
		servingKeyFile:  filepath.Join(dir, "serving.key"),
		saKeyFile:       filepath.Join(dir, "sa.key"),
		tokenFile:       filepath.Join(dir, "tokens.csv"),
		adminToken:      hex.EncodeToString(tokenBytes),
	}
	// The admin is in system:masters, which RBAC lets do anything.
	tokenLine := fmt.Sprintf("%s,%s,%s,%q\n", p.adminToken, adminUser, adminUser, "system:masters")
	for _, f := range []struct {
		path string
		data []byte
	}{
		{filepath.Join(dir, "ca.crt"), p.caPEM},
		{p.servingCertFile, servingPEM},
		{p.servingKeyFile, servingKeyPEM},
		{p.saKeyFile, saKey},
		{p.tokenFile, []byte(tokenLine)},
	} {
		if err := os.WriteFile(f.path, f.data, 0o600); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// adminUser is the name of the static-token user that every client uses.
const adminUser = "ctrlkit-admin"
