package main

import (
	"io"
	"net/http"
	"strings"
	"sync/atomic"
)

// byteCounter counts the bytes of list and watch response bodies read
// through the transports it wraps: what a replica's informers receive.
// They are the bodies as the client decodes them (after the transport's
// gzip decompression, if the server compressed them).
type byteCounter struct {
	list, watch atomic.Int64
}

// wrap is a transport.WrapperFunc: set it with rest.Config.Wrap.
func (c *byteCounter) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := next.RoundTrip(req)
		if err != nil || resp.Body == nil {
			return resp, err
		}
		switch readKind(req) {
		case "watch":
			resp.Body = &countingBody{ReadCloser: resp.Body, n: &c.watch}
		case "list":
			resp.Body = &countingBody{ReadCloser: resp.Body, n: &c.list}
		}
		return resp, nil
	})
}

// readKind tells a watch (a GET with watch=true, as client-go sends it)
// from a list (a GET of a collection) from anything else ("").
func readKind(req *http.Request) string {
	if req.Method != http.MethodGet {
		return ""
	}
	switch req.URL.Query().Get("watch") {
	case "true", "1":
		return "watch"
	}
	if resource := apiResource(req.URL.Path); resource != "" && isCollection(req.URL.Path) {
		return "list"
	}
	return ""
}

// isCollection reports whether an API path names a collection (…/pods,
// …/namespaces/ns/pods) rather than one object (…/pods/p) or a
// subresource. apiResource has already checked it is a resource path.
func isCollection(path string) bool {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	if parts[0] == "api" {
		parts = parts[2:]
	} else {
		parts = parts[3:]
	}
	if len(parts) >= 3 && parts[0] == "namespaces" {
		parts = parts[2:]
	}
	return len(parts) == 1
}

// countingBody adds every byte read from the body to n.
type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}
