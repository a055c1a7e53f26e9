//go:build e2e

package main

import (
	"io"
	"net"
	"slices"
	"sync"
	"testing"
	"time"
)

// tcpProxy stands in for the webhook's Service in front of the operator's
// replicas: it forwards each connection, TLS and all, to the next backend
// in turn that accepts it. A replica that stopped listening is skipped, as
// a Service's endpoints drop a pod that is terminating; one that is not
// ready yet is not added, as endpoints list only ready pods.
type tcpProxy struct {
	l  net.Listener
	wg sync.WaitGroup

	mu       sync.Mutex
	backends []string
	next     int
	conns    map[net.Conn]bool
	closed   bool
}

// startTCPProxy listens on host until the test ends.
func startTCPProxy(t *testing.T, host string) *tcpProxy {
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{l: l, conns: map[net.Conn]bool{}}
	p.wg.Go(p.serve)
	t.Cleanup(p.close)
	return p
}

// Addr is the host:port the proxy listens on.
func (p *tcpProxy) Addr() string { return p.l.Addr().String() }

// add makes backend (host:port) one the proxy forwards to.
func (p *tcpProxy) add(backend string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.backends = append(p.backends, backend)
}

func (p *tcpProxy) serve() {
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		p.wg.Go(func() { p.forward(c) })
	}
}

// forward pipes client to the first backend that accepts it, both ways,
// until either side closes; then it closes both, so that the API server
// sees a replica's close at once.
func (p *tcpProxy) forward(client net.Conn) {
	backend := p.dial()
	if backend == nil || !p.track(client, backend) {
		client.Close()
		if backend != nil {
			backend.Close()
		}
		return
	}
	defer p.untrack(client, backend)
	var pipes sync.WaitGroup
	for _, dir := range [][2]net.Conn{{backend, client}, {client, backend}} {
		pipes.Go(func() {
			_, _ = io.Copy(dir[0], dir[1])
			client.Close()
			backend.Close()
		})
	}
	pipes.Wait()
}

// dial connects to the backends in turn, starting after the one the last
// connection went to, and returns the first connection made, or nil if
// none accepts.
func (p *tcpProxy) dial() net.Conn {
	p.mu.Lock()
	backends, start := slices.Clone(p.backends), p.next
	p.next++
	p.mu.Unlock()
	for i := range backends {
		c, err := net.DialTimeout("tcp", backends[(start+i)%len(backends)], time.Second)
		if err == nil {
			return c
		}
	}
	return nil
}

// track records open connections for close; it is false once the proxy
// is closed.
func (p *tcpProxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	for _, c := range conns {
		p.conns[c] = true
	}
	return true
}

func (p *tcpProxy) untrack(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		delete(p.conns, c)
	}
}

// close stops listening, closes every connection and waits for the
// goroutines.
func (p *tcpProxy) close() {
	p.l.Close()
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}
