package envtest

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPKIServingCertVerifiesForLoopback(t *testing.T) {
	keys, err := writePKI(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(keys.caPEM) {
		t.Fatal("CA PEM does not parse")
	}
	// The API server's certificate, and the one for a webhook server.
	for _, files := range [][2]string{{keys.servingCertFile, keys.servingKeyFile},
		{filepath.Join(keys.webhookCertDir, "tls.crt"), filepath.Join(keys.webhookCertDir, "tls.key")}} {
		pair, err := tls.LoadX509KeyPair(files[0], files[1])
		if err != nil {
			t.Fatal(err)
		}
		leaf, err := x509.ParseCertificate(pair.Certificate[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, host := range []string{"127.0.0.1", "localhost"} {
			if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: host}); err != nil {
				t.Errorf("%s does not verify for %s: %v", files[0], host, err)
			}
		}
		if leaf.VerifyHostname(net.IPv4(10, 0, 0, 1).String()) == nil {
			t.Errorf("%s verifies for 10.0.0.1; it should cover loopback only", files[0])
		}
	}
	tokens, err := os.ReadFile(keys.tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(tokens), keys.adminToken+","+adminUser) || !strings.Contains(string(tokens), "system:masters") {
		t.Errorf("token file %q does not make the admin token a system:masters user", tokens)
	}
}

func TestFreePortsAreDistinct(t *testing.T) {
	ports, err := freePorts(5)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if p <= 0 || seen[p] {
			t.Fatalf("ports %v: want 5 distinct positive ports", ports)
		}
		seen[p] = true
	}
}
