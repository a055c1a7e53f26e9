//go:build e2e

package e2e

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fetched is what a GET of a metrics endpoint got.
type fetched struct {
	code int    // 0 if no response
	body string // the response's body
	err  error  // why no response (e.g. the certificate did not verify)
}

func (s fetched) String() string {
	if s.err != nil {
		return "error: " + s.err.Error()
	}
	return fmt.Sprintf("%d %q", s.code, s.body)
}

// curlMetrics GETs url as a scraper does: trusting the certificates in caFile
// (if not empty), with token as the bearer token (if not empty). It runs
// curl, as an operator checks an endpoint by hand, or, where the machine
// has none, Go's HTTP client.
func curlMetrics(t *testing.T, url, caFile, token string) fetched {
	t.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		return getInGo(t, url, caFile, token)
	}
	args := []string{"--silent", "--show-error", "--max-time", "10", "--write-out", "\n%{http_code}"}
	if caFile != "" {
		args = append(args, "--cacert", caFile)
	}
	cmd := exec.CommandContext(t.Context(), "curl", append(args, "--header", "@-", url)...)
	if token != "" { // on stdin, not on a command line that ps shows
		cmd.Stdin = strings.NewReader("Authorization: Bearer " + token + "\n")
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fetched{err: fmt.Errorf("curl: %w: %s", err, strings.TrimSpace(stderr.String()))}
	}
	out := stdout.String()
	i := strings.LastIndexByte(out, '\n')
	code, err := strconv.Atoi(out[i+1:])
	if err != nil {
		return fetched{err: fmt.Errorf("curl's status %q: %w", out[i+1:], err)}
	}
	return fetched{code: code, body: out[:i]}
}

// getInGo is curlMetrics with Go's HTTP client.
func getInGo(t *testing.T, url, caFile, token string) fetched {
	t.Helper()
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			t.Fatal(err)
		}
		tlsConfig.RootCAs = x509.NewCertPool()
		tlsConfig.RootCAs.AppendCertsFromPEM(pem)
	}
	transport := &http.Transport{TLSClientConfig: tlsConfig}
	defer transport.CloseIdleConnections()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := (&http.Client{Transport: transport, Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return fetched{err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fetched{err: err}
	}
	return fetched{code: resp.StatusCode, body: string(body)}
}
