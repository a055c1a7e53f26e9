// Package certtest writes self-signed serving certificates for ctrlkit's
// own TLS tests.
package certtest

import (
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/client-go/util/cert"
)

// WriteCert writes a new self-signed serving certificate for 127.0.0.1 as
// tls.crt and tls.key in dir, and returns a pool that trusts it and no
// other. The files are replaced by renames, as the kubelet swaps a
// mounted Secret, so that a reader never sees half a file.
func WriteCert(t testing.TB, dir string) *x509.CertPool {
	t.Helper()
	certPEM, keyPEM, err := cert.GenerateSelfSignedCertKey("localhost", []net.IP{net.ParseIP("127.0.0.1")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"tls.crt": certPEM, "tls.key": keyPEM} {
		tmp := filepath.Join(dir, "."+name+".tmp")
		if err := os.WriteFile(tmp, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(certPEM) {
		t.Fatal("no certificate in the generated PEM")
	}
	return pool
}
