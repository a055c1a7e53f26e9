package envtest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/util/keyutil"

	"github.com/ctrlkit/ctrlkit/controller/internal/pki"
)

// keyMaterial is the key material of one control plane instance, written to files
// that the components read.
type keyMaterial struct {
	caPEM []byte // trusts the API server's serving certificate

	servingCertFile string
	servingKeyFile  string
	saKeyFile       string // signs service account tokens, and verifies them
	tokenFile       string // static tokens, one line per user
	webhookCertDir  string // tls.crt and tls.key of a webhook server on loopback, signed by the CA

	adminToken string
}

// writePKI creates a throwaway CA, serving certificates for 127.0.0.1 and
// localhost (the API server's, and one for a webhook server in the test),
// a service account signing key and an admin token, all in dir.
// Nothing outlives the instance, so the keys are generated fresh each time.
//
// The keys are P-256 (package pki): client-go's GenerateSelfSignedCertKey
// would make the CA and the certificate in one call, but with two RSA-2048
// keys, which took 0.25 to 1 s per start on a busy 2-core machine (at
// 86e5170, with and without -race), against a few milliseconds for these.
func writePKI(dir string) (*keyMaterial, error) {
	now := time.Now()
	ca, err := pki.NewCA("ctrlkit-local", now, 7*24*time.Hour)
	if err != nil {
		return nil, err
	}
	serving, err := pki.NewServing(ca, []string{"localhost", "127.0.0.1"}, now, 7*24*time.Hour)
	if err != nil {
		return nil, err
	}
	webhook, err := pki.NewServing(ca, []string{"localhost", "127.0.0.1"}, now, 7*24*time.Hour)
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

	p := &keyMaterial{
		caPEM:           ca.CertPEM,
		servingCertFile: filepath.Join(dir, "serving.crt"),
		servingKeyFile:  filepath.Join(dir, "serving.key"),
		saKeyFile:       filepath.Join(dir, "sa.key"),
		tokenFile:       filepath.Join(dir, "tokens.csv"),
		webhookCertDir:  filepath.Join(dir, "webhook-certs"),
		adminToken:      hex.EncodeToString(tokenBytes),
	}
	if err := os.MkdirAll(p.webhookCertDir, 0o700); err != nil {
		return nil, err
	}
	// The admin is in system:masters, which RBAC lets do anything.
	tokenLine := fmt.Sprintf("%s,%s,%s,%q\n", p.adminToken, adminUser, adminUser, "system:masters")
	for _, f := range []struct {
		path string
		data []byte
	}{
		{filepath.Join(dir, "ca.crt"), p.caPEM},
		{p.servingCertFile, serving.CertPEM},
		{p.servingKeyFile, serving.KeyPEM},
		{p.saKeyFile, saKey},
		{p.tokenFile, []byte(tokenLine)},
		{filepath.Join(p.webhookCertDir, "tls.crt"), webhook.CertPEM},
		{filepath.Join(p.webhookCertDir, "tls.key"), webhook.KeyPEM},
	} {
		if err := os.WriteFile(f.path, f.data, 0o600); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// adminUser is the name of the static-token user that every client uses.
const adminUser = "ctrlkit-admin"
