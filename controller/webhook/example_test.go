package webhook_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/cert"

	"github.com/ctrlkit/ctrlkit/controller/webhook"
)

// A Server with the certificate files of a mounted Secret, serving one
// handler until its context ends.
func ExampleServer() {
	// In a cluster, cert-manager or a Secret volume provides these files.
	dir, _ := os.MkdirTemp("", "webhook-example")
	defer os.RemoveAll(dir)
	certPEM, keyPEM, _ := cert.GenerateSelfSignedCertKey("localhost", []net.IP{net.ParseIP("127.0.0.1")}, nil)
	os.WriteFile(filepath.Join(dir, "tls.crt"), certPEM, 0o600)
	os.WriteFile(filepath.Join(dir, "tls.key"), keyPEM, 0o600)

	srv, err := webhook.NewServer(webhook.Options{Host: "127.0.0.1", Port: -1, CertDir: dir})
	if err != nil {
		panic(err)
	}
	srv.Register("/hello", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello over TLS")
	}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- srv.Start(ctx) }()
	defer func() { cancel(); <-done }()

	// The client trusts the CA; a real one is the API server, told of the
	// CA by the caBundle of the webhook configuration.
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(certPEM)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}, DisableKeepAlives: true}}
	if err := waitForAddr(ctx, srv); err != nil {
		panic(err)
	}
	resp, err := client.Get("https://" + srv.Addr() + "/hello")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.Status, string(body))
	// Output: 200 OK hello over TLS
}

// waitForAddr waits until Start has bound the port.
func waitForAddr(ctx context.Context, srv *webhook.Server) error {
	return wait.PollUntilContextTimeout(ctx, time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return srv.Addr() != "", nil
	})
}
