// Package certwatcher serves a certificate and key pair from files and
// reloads them when they change, as cert-manager or a mounted Secret
// replace them.
//
// It polls on demand: every TLS handshake stats the two files (a few
// microseconds against the milliseconds of a handshake) and reloads the
// pair when a file's size or modification time changed. So no goroutine
// runs, and the first handshake after a change serves the new pair. The
// kubelet swaps a mounted Secret by a symlink; os.Stat follows it, so the
// swap is seen too.
package certwatcher

import (
	"crypto/tls"
	"fmt"
	"os"
	"sync"
	"time"

	"k8s.io/klog/v2"
)

// Watcher holds the last good pair read from two files.
type Watcher struct {
	certPath, keyPath string

	mu      sync.Mutex
	cert    *tls.Certificate
	current [2]stamp // of the files that cert was read from
	failed  [2]stamp // of the files that last failed to load, not tried again
}

// stamp is what tells that a file changed.
type stamp struct {
	size    int64
	modTime time.Time
}

// New reads the pair once and fails if it cannot, so that a server with a
// wrong path fails at start and not at its first handshake.
func New(certPath, keyPath string) (*Watcher, error) {
	w := &Watcher{certPath: certPath, keyPath: keyPath}
	stamps, err := w.stat()
	if err != nil {
		return nil, err
	}
	if err := w.load(stamps); err != nil {
		return nil, err
	}
	return w, nil
}

// GetCertificate is a tls.Config.GetCertificate. It reloads the pair if a
// file changed; a pair that fails to load (say, the certificate is written
// but the key not yet) is logged once and the last good pair is served
// until a file changes again.
func (w *Watcher) GetCertificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	stamps, err := w.stat()
	if err == nil && stamps != w.current && stamps != w.failed {
		if err = w.load(stamps); err != nil {
			w.failed = stamps
		} else {
			logger(hello).V(1).Info("Reloaded serving certificate", "cert", w.certPath, "key", w.keyPath)
		}
	}
	if err != nil {
		logger(hello).Error(err, "Serving the last good certificate", "cert", w.certPath, "key", w.keyPath)
	}
	return w.cert, nil
}

// load reads and parses the pair; on success it becomes the served one.
func (w *Watcher) load(stamps [2]stamp) error {
	certPEM, err := os.ReadFile(w.certPath)
	if err != nil {
		return fmt.Errorf("reading certificate: %w", err)
	}
	keyPEM, err := os.ReadFile(w.keyPath)
	if err != nil {
		return fmt.Errorf("reading key: %w", err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return fmt.Errorf("loading certificate %s and key %s: %w", w.certPath, w.keyPath, err)
	}
	w.cert, w.current = &cert, stamps
	return nil
}

func (w *Watcher) stat() ([2]stamp, error) {
	var stamps [2]stamp
	for i, path := range []string{w.certPath, w.keyPath} {
		fi, err := os.Stat(path)
		if err != nil {
			return stamps, fmt.Errorf("serving certificate: %w", err)
		}
		stamps[i] = stamp{size: fi.Size(), modTime: fi.ModTime()}
	}
	return stamps, nil
}

// logger is the server's logger, which the handshake's context carries.
func logger(hello *tls.ClientHelloInfo) klog.Logger {
	if hello == nil {
		return klog.Background()
	}
	return klog.FromContext(hello.Context())
}
