package manager

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
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
	health := http.NewServeMux()
	health.Handle("/healthz", m.healthz.handler("/healthz"))
	health.Handle("/healthz/", m.healthz.handler("/healthz"))
	health.Handle("/readyz", m.readyz.handler("/readyz"))
	health.Handle("/readyz/", m.readyz.handler("/readyz"))
	metrics := http.NewServeMux()
	metrics.Handle("/metrics", promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry}))

	type endpoint struct {
		name    string
		addr    string
		handler http.Handler
		bound   []*atomic.Pointer[string]
	}
	var endpoints []endpoint
	switch probe, metricsAddr := m.opts.HealthProbeAddr, m.opts.MetricsAddr; {
	case probe != "" && probe == metricsAddr:
		health.Handle("/metrics", metrics)
		endpoints = append(endpoints, endpoint{"health probe and metrics server", probe, health, []*atomic.Pointer[string]{&m.healthProbeAddr, &m.metricsAddr}})
	default:
		if probe != "" {
			endpoints = append(endpoints, endpoint{"health probe server", probe, health, []*atomic.Pointer[string]{&m.healthProbeAddr}})
		}
		if metricsAddr != "" {
			endpoints = append(endpoints, endpoint{"metrics server", metricsAddr, metrics, []*atomic.Pointer[string]{&m.metricsAddr}})
		}
	}

	var servers []*server
	for _, ep := range endpoints {
		l, err := net.Listen("tcp", ep.addr)
		if err != nil {
			for _, s := range servers {
				s.l.Close()
			}
			m.healthProbeAddr.Store(nil)
			m.metricsAddr.Store(nil)
			return nil, fmt.Errorf("manager: %s: %w", ep.name, err)
		}
		if m.wrapListener != nil {
			l = m.wrapListener(l)
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
				Handler:           ep.handler,
				ReadHeaderTimeout: 10 * time.Second,
			},
		})
	}
	return servers, nil
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
