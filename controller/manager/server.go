package manager

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/klog/v2"
)

// server is one HTTP endpoint of the Manager: a bound listener and its
// serving goroutine.
type server struct {
	name string // for logs and errors, e.g. "health probe server"
	srv  *http.Server
	l    net.Listener
	done chan struct{} // closed when Serve has returned
	err  error         // Serve's error, set before done closes
}

// listen binds the configured addresses and records the bound ones. On
// error, nothing stays open.
func (m *Manager) listen() ([]*server, error) {
	var servers []*server
	fail := func(ep *endpoint, err error) ([]*server, error) {
		for _, s := range servers {
			s.l.Close()
		}
		m.healthProbeAddr.Store(nil)
		m.metricsAddr.Store(nil)
		m.pprofAddr.Store(nil)
		return nil, fmt.Errorf("manager: %s: %w", ep.name, err)
	}
	for _, ep := range m.endpoints() {
		var cfg *tls.Config
		if ep.tls {
			var err error
			if cfg, err = m.opts.MetricsTLS.config(); err != nil {
				return fail(ep, err)
			}
		}
		l, err := net.Listen("tcp", ep.addr)
		if err != nil {
			return fail(ep, err)
		}
		if m.wrapListener != nil {
			l = m.wrapListener(l)
		}
		if cfg != nil {
			l = tls.NewListener(l, cfg)
		}
		addr := l.Addr().String()
		for _, b := range ep.bound {
			b.Store(&addr)
		}
		servers = append(servers, &server{
			name: ep.name,
			l:    l,
			done: make(chan struct{}),
			srv: &http.Server{
				Handler:           ep.mux,
				ReadHeaderTimeout: 10 * time.Second,
				// The certificate watcher logs reloads with the
				// handshake's context.
				BaseContext: func(net.Listener) context.Context { return klog.NewContext(context.Background(), m.logger) },
			},
		})
	}
	return servers, nil
}

// endpoint is one address to listen on and what it serves.
type endpoint struct {
	name  string // e.g. "metrics server", or "health probe and metrics server"
	addr  string
	mux   *http.ServeMux
	bound []*atomic.Pointer[string] // where to record the bound address
	tls   bool                      // served over HTTPS (MetricsTLS)
}

// endpoints groups the enabled endpoints by address, in a fixed order:
// handlers configured on one address share one server.
func (m *Manager) endpoints() []*endpoint {
	type part struct {
		name     string
		addr     string
		bound    *atomic.Pointer[string]
		tls      bool
		register func(*http.ServeMux)
	}
	parts := []part{
		{"health probe", m.opts.HealthProbeAddr, &m.healthProbeAddr, false, func(mux *http.ServeMux) {
			mux.Handle("/healthz", m.healthz.handler("/healthz"))
			mux.Handle("/healthz/", m.healthz.handler("/healthz"))
			mux.Handle("/readyz", m.readyz.handler("/readyz"))
			mux.Handle("/readyz/", m.readyz.handler("/readyz"))
		}},
		{"metrics", m.opts.MetricsAddr, &m.metricsAddr, m.opts.MetricsTLS.SecureServing, func(mux *http.ServeMux) {
			mux.Handle("/metrics", m.guard(promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry})))
		}},
		{"pprof", m.opts.PprofAddr, &m.pprofAddr, false, func(mux *http.ServeMux) {
			mux.Handle("/debug/pprof/", m.guard(pprofHandler()))
		}},
	}
	var eps []*endpoint
	byAddr := map[string]*endpoint{}
	for _, p := range parts {
		if p.addr == "" {
			continue
		}
		ep := byAddr[p.addr]
		if ep == nil {
			ep = &endpoint{name: p.name + " server", addr: p.addr, mux: http.NewServeMux()}
			byAddr[p.addr] = ep
			eps = append(eps, ep)
		} else {
			ep.name = strings.TrimSuffix(ep.name, " server") + " and " + p.name + " server"
		}
		p.register(ep.mux)
		ep.bound = append(ep.bound, p.bound)
		ep.tls = ep.tls || p.tls // pprof on the metrics address is HTTPS too
	}
	return eps
}

// guard wraps h with MetricsAuth's review, if enabled.
func (m *Manager) guard(h http.Handler) http.Handler {
	if m.auth == nil {
		return h
	}
	return m.auth.wrap(h)
}

// serve starts answering requests in the background. If serving fails
// before shutdown, it sends s on failed.
func (s *server) serve(failed chan<- *server) {
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(s.l); !errors.Is(err, http.ErrServerClosed) {
			s.err = err
			failed <- s // buffered for every server: never blocks
		}
	}()
}

// shutdown stops accepting requests and waits for those in flight until ctx
// ends, then closes whatever is left. It reports whether it finished in time.
func (s *server) shutdown(ctx context.Context) bool {
	inTime := s.srv.Shutdown(ctx) == nil
	if !inTime {
		s.srv.Close()
	}
	<-s.done
	return inTime
}
