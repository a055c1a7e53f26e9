package webhook

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"

	"github.com/ctrlkit/ctrlkit/controller/internal/certwatcher"
)

// Server is an HTTPS server for webhooks. Register handlers on it, then
// run Start. It is meant to run on every replica (NeedLeaderElection is
// false) and before the caches sync, since the API server may call a
// conversion webhook while answering the first list.
type Server struct {
	opts    Options
	metrics *metrics
	mux     *http.ServeMux

	mu    sync.Mutex
	paths map[string]bool

	started   atomic.Bool
	draining  atomic.Bool
	addr      atomic.Pointer[string]
	listening chan struct{} // closed once Start has bound the port
}

// NewServer returns a Server with opts. It fails if the metrics cannot be
// registered on opts.Registerer.
func NewServer(opts Options) (*Server, error) {
	opts = opts.complete()
	m, err := newMetrics(opts.Registerer)
	if err != nil {
		return nil, fmt.Errorf("webhook: registering metrics: %w", err)
	}
	return &Server{opts: opts, metrics: m, mux: http.NewServeMux(), paths: map[string]bool{}, listening: make(chan struct{})}, nil
}

// Register serves h at path, counted and timed under that path, with a
// panic in h answered by a 500. It may be called before or after Start. It
// panics if path does not start with "/" or is registered already, as
// http.ServeMux does.
func (s *Server) Register(path string, h http.Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(path) == 0 || path[0] != '/' {
		panic(fmt.Sprintf("webhook: path %q does not start with /", path))
	}
	if s.paths[path] {
		panic(fmt.Sprintf("webhook: path %q is registered twice", path))
	}
	s.paths[path] = true
	s.mux.Handle(path, s.metrics.instrument(path, recoverPanic(path, s.metrics, h)))
}

// Start serves until ctx ends, then stops accepting connections and waits
// up to Options.DrainTimeout for requests in flight. It returns an error if
// the certificate cannot be loaded, the port cannot be bound, serving
// fails, or requests were still running when the drain timed out. The
// logger in ctx (klog.FromContext) logs panics and certificate reloads.
// A Server starts once.
func (s *Server) Start(ctx context.Context) error {
	if !s.started.CompareAndSwap(false, true) {
		return errors.New("webhook: server started twice")
	}
	cfg, err := s.tlsConfig()
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", net.JoinHostPort(s.opts.Host, strconv.Itoa(s.opts.Port)))
	if err != nil {
		return fmt.Errorf("webhook: %w", err)
	}
	addr := l.Addr().String()
	s.addr.Store(&addr)
	close(s.listening)
	logger := klog.FromContext(ctx)
	conns := newOpenConns()
	srv := &http.Server{
		Handler:           closeWhenDraining(s.draining.Load, s.mux),
		ConnState:         conns.track,
		TLSConfig:         cfg,
		ReadHeaderTimeout: 10 * time.Second,
		// Requests outlive ctx: they are drained, not cut, at shutdown.
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		// TLS handshake errors (a probe, a client that does not trust us)
		// go to the logger, not to stderr.
		ErrorLog: slog.NewLogLogger(logr.ToSlogHandler(logger.V(2)), slog.LevelInfo),
	}
	logger.Info("Serving webhooks", "address", addr)
	served := make(chan error, 1)
	go func() { served <- srv.ServeTLS(l, "", "") }()

	select {
	case err := <-served:
		return fmt.Errorf("webhook: serving: %w", err)
	case <-ctx.Done():
	}
	drainCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opts.DrainTimeout)
	defer cancel()
	// Refuse new connections, and let the clients close the open ones
	// after one more response each (keepAliveDrain says why) before
	// Shutdown closes those still idle and waits for requests in flight.
	s.draining.Store(true)
	l.Close()
	<-served // the listener's close
	lameDuck := time.NewTimer(keepAliveDrain)
	defer lameDuck.Stop()
	select {
	case <-conns.allClosed():
	case <-lameDuck.C:
	case <-drainCtx.Done():
	}
	err = srv.Shutdown(drainCtx)
	if err != nil {
		srv.Close()
		err = fmt.Errorf("webhook: requests still running after draining for %s: %w", s.opts.DrainTimeout, err)
	}
	return err
}

// tlsConfig builds the served configuration from Options.
func (s *Server) tlsConfig() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if s.opts.TLSConfig != nil {
		cfg = s.opts.TLSConfig.Clone()
		if len(cfg.Certificates) > 0 || cfg.GetCertificate != nil || cfg.GetConfigForClient != nil {
			return cfg, nil
		}
	}
	w, err := certwatcher.New(filepath.Join(s.opts.CertDir, s.opts.CertName), filepath.Join(s.opts.CertDir, s.opts.KeyName))
	if err != nil {
		return nil, err
	}
	cfg.GetCertificate = w.GetCertificate
	return cfg, nil
}

// Run is Start, so that a manager.Manager runs the Server as a Runnable.
func (s *Server) Run(ctx context.Context) error { return s.Start(ctx) }

// NeedLeaderElection is false: every replica serves webhooks.
func (s *Server) NeedLeaderElection() bool { return false }

// Name names the Server in the manager's logs.
func (s *Server) Name() string { return "webhook server" }

// Addr is the address the Server listens on once Start has bound it, or
// "" before.
func (s *Server) Addr() string {
	if a := s.addr.Load(); a != nil {
		return *a
	}
	return ""
}

// Listening is closed once Start has bound the port: from then on the
// Server accepts connections and Addr is set. A manager waits for it
// before starting informers, so that the API server can reach a
// conversion webhook during their first list. It is never closed if
// Start fails before binding.
func (s *Server) Listening() <-chan struct{} { return s.listening }
