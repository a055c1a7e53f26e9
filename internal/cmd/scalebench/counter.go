package main

import (
	"net/http"
	"sync"
)

// writeCounter counts the API writes sent through the transports it wraps,
// whatever their outcome: a failed write is still a request the API server
// had to serve.
type writeCounter struct {
	mu     sync.Mutex
	counts writes
}

func newWriteCounter() *writeCounter { return &writeCounter{counts: writes{}} }

// wrap is a transport.WrapperFunc: set it with rest.Config.Wrap.
func (c *writeCounter) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		if isWriteVerb(req.Method) {
			if resource := apiResource(req.URL.Path); resource != "" {
				c.mu.Lock()
				c.counts[writeKey{Verb: req.Method, Resource: resource}]++
				c.mu.Unlock()
			}
		}
		return next.RoundTrip(req)
	})
}

// snapshot returns a copy of the counts so far.
func (c *writeCounter) snapshot() writes {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(writes, len(c.counts))
	for k, n := range c.counts {
		out[k] = n
	}
	return out
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
