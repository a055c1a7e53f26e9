package webhook

import (
	"fmt"
	"net/http"
	"runtime/debug"

	"k8s.io/klog/v2"
)

// recoverPanic answers a panic in h with a 500 (if h has not yet written a
// header) and logs it with its stack, so that one bad request neither kills
// the process nor goes unseen. http.ErrAbortHandler is passed on: it is
// how a handler asks net/http to drop the connection.
func recoverPanic(path string, m *metrics, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tw := &headerTracker{ResponseWriter: w}
		defer func() {
			p := recover()
			if p == nil {
				return
			}
			if p == http.ErrAbortHandler {
				panic(p)
			}
			m.panics.Inc()
			klog.FromContext(r.Context()).Error(fmt.Errorf("panic: %v", p), "Webhook handler panicked",
				"webhook", path, "stack", string(debug.Stack()))
			if !tw.wroteHeader {
				http.Error(w, "internal error: the webhook handler panicked", http.StatusInternalServerError)
			}
		}()
		h.ServeHTTP(tw, r)
	})
}

// headerTracker records whether the header has been written.
type headerTracker struct {
	http.ResponseWriter
	wroteHeader bool
}

func (t *headerTracker) WriteHeader(code int) {
	t.wroteHeader = true
	t.ResponseWriter.WriteHeader(code)
}

func (t *headerTracker) Write(b []byte) (int, error) {
	t.wroteHeader = true
	return t.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (t *headerTracker) Unwrap() http.ResponseWriter { return t.ResponseWriter }
