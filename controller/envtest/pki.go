package envtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pki is the key material of one control plane instance, written to files
// that the components read.
type pki struct {
	caPEM []byte // trusts the API server's serving certificate

	servingCertFile string
	servingKeyFile  string
	saPublicKeyFile string // verifies service account tokens
	saSigningFile   string // signs service account tokens
	tokenFile       string // static tokens, one line per user

	adminToken string
}

// writePKI creates a throwaway CA, a serving certificate for 127.0.0.1 and
// localhost, a service account signing key and an admin token, all in dir.
// Nothing outlives the instance, so the keys are generated fresh each time.
func writePKI(dir string) (*pki, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "ctrlkit-local-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(7 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}

	servingKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	servingTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(7 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:     []string{"localhost"},
	}
	servingDER, err := x509.CreateCertificate(rand.Reader, servingTmpl, caCert, &servingKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}

	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}

	tokenBytes := make([]byte, 24)
	if _, err := rand.Read(tokenBytes); err != nil {
		return nil, err
	}

	p := &pki{
		caPEM:           pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		servingCertFile: filepath.Join(dir, "serving.crt"),
		servingKeyFile:  filepath.Join(dir, "serving.key"),
		saPublicKeyFile: filepath.Join(dir, "sa.pub"),
		saSigningFile:   filepath.Join(dir, "sa.key"),
		tokenFile:       filepath.Join(dir, "tokens.csv"),
		adminToken:      hex.EncodeToString(tokenBytes),
	}
	servingKeyPEM, err := ecKeyPEM(servingKey)
	if err != nil {
		return nil, err
	}
	saKeyPEM, err := ecKeyPEM(saKey)
	if err != nil {
		return nil, err
	}
	saPubDER, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return nil, err
	}
	// The admin is in system:masters, which RBAC lets do anything.
	tokenLine := fmt.Sprintf("%s,%s,%s,%q\n", p.adminToken, adminUser, adminUser, "system:masters")
	files := []struct {
		path string
		data []byte
	}{
		{filepath.Join(dir, "ca.crt"), p.caPEM},
		{p.servingCertFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: servingDER})},
		{p.servingKeyFile, servingKeyPEM},
		{p.saSigningFile, saKeyPEM},
		{p.saPublicKeyFile, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: saPubDER})},
		{p.tokenFile, []byte(tokenLine)},
	}
	for _, f := range files {
		if err := os.WriteFile(f.path, f.data, 0o600); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// adminUser is the name of the static-token user that every client uses.
const adminUser = "ctrlkit-admin"

func ecKeyPEM(k *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), nil
}
