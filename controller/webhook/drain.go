package webhook

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// keepAliveDrain bounds how long a stopping Server keeps its open
// connections for one more request each. A client that keeps connections
// alive (the API server does, over HTTP/1.1 to a Service) may be sending
// a request on an idle one at the moment the server closes it; it then
// sees EOF, and it does not retry a POST it has written, so the admission
// request fails. Instead each connection's next response says
// "Connection: close" (for HTTP/2, a GOAWAY), and the client closes the
// connection itself. A connection that carries no request for this long
// is closed idle: one the client has not used for a second is unlikely to
// be the one it picks as it closes.
const keepAliveDrain = time.Second

// openConns counts a Server's open connections (http.Server.ConnState),
// so that a drain can end as soon as every client has closed its own.
type openConns struct {
	mu   sync.Mutex
	n    int
	none chan struct{} // closed while n is 0
}

func newOpenConns() *openConns {
	c := &openConns{none: make(chan struct{})}
	close(c.none)
	return c
}

// track is an http.Server's ConnState.
func (c *openConns) track(_ net.Conn, state http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch state {
	case http.StateNew:
		if c.n == 0 {
			c.none = make(chan struct{})
		}
		c.n++
	case http.StateClosed, http.StateHijacked:
		c.n--
		if c.n == 0 {
			close(c.none)
		}
	}
}

// allClosed is closed once no connection is open.
func (c *openConns) allClosed() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.none
}

// closeWhenDraining asks the client to close the connection after this
// response once draining is set: Go's server closes an HTTP/1.1
// connection after a response with "Connection: close", and sends a
// GOAWAY on an HTTP/2 one.
func closeWhenDraining(draining func() bool, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if draining() {
			w.Header().Set("Connection", "close")
		}
		h.ServeHTTP(w, r)
	})
}
