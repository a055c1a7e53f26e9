package controlplane

import (
	"bytes"
	"sync"
	"testing"
)

// StartForTest starts a control plane for the test t and stops it when the
// test and its subtests finish. It never skips: if the binaries are missing it
// builds them (minutes, the first time), and any error fails the test with
// the reason. Progress goes to t.Log unless opts.Log is set.
//
// Give such tests a generous -timeout: the first build alone can exceed go
// test's default of 10 minutes.
func StartForTest(t testing.TB, opts Options) *ControlPlane {
	t.Helper()
	if opts.Log == nil {
		opts.Log = &testLogWriter{t: t}
	}
	cp, err := Start(t.Context(), opts)
	if err != nil {
		t.Fatalf("start the local control plane: %v", err)
	}
	t.Cleanup(func() {
		if err := cp.Stop(); err != nil {
			t.Errorf("stop the local control plane: %v", err)
		}
	})
	return cp
}

// testLogWriter turns written lines into t.Log calls.
type testLogWriter struct {
	t   testing.TB
	mu  sync.Mutex
	buf []byte
}

func (w *testLogWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.t.Log(string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
}
