//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// lateWatchDelay is how late the controller's informers see watch events:
// an informer that lags behind a loaded API server.
const lateWatchDelay = 300 * time.Millisecond

// TestReadYourWritesOnLateWatches rolls out 20 Deployments with our
// controller, whose informers receive every watch event lateWatchDelay
// late, and counts the API server's 409 answers to the controller's writes.
// Without read-your-writes, passes run on caches that lack the controller's
// own last writes, and their status updates conflict. With it, no
// Deployment or ReplicaSet write conflicts. The two run side by side, each
// in a namespace of its own.
func TestReadYourWritesOnLateWatches(t *testing.T) {
	cp := ourCP.get(t)
	for _, tc := range []struct {
		name    string
		disable bool
	}{{"off", true}, {"on", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ns := newNamespace(t, cp.Client())
			conflicts := startLateController(t, cp.RESTConfig(), ns, tc.disable)
			rollOut20(t, cp.Client(), ns)
			got := conflicts.snapshot()
			t.Logf("read-your-writes %s: 409s on the controller's writes: %v", tc.name, got)
			if tc.disable {
				if got["PUT deployments/status"] == 0 {
					t.Errorf("no Deployment status update conflicted with the mechanism off: the watches are not late enough, and the test proves nothing")
				}
				return
			}
			for write, n := range got {
				if strings.Contains(write, "deployments") || strings.Contains(write, "replicasets") {
					t.Errorf("%d × 409 on %s with read-your-writes on", n, write)
				}
			}
		})
	}
}

// rollOut20 creates 20 Deployments, waits for them to be available, changes
// every image and waits for the rollouts to complete.
func rollOut20(t *testing.T, client kubernetes.Interface, ns string) {
	t.Helper()
	const n = 20
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("web-%02d", i)
		spec := deploymentSpec{name: names[i], replicas: 2, image: "nginx:1",
			maxSurge: intstr.FromInt32(1), maxUnavailable: intstr.FromInt32(0)}
		if _, err := client.AppsV1().Deployments(ns).Create(t.Context(), spec.build(), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	allComplete := func(ctx context.Context) (bool, error) {
		for _, name := range names {
			if ok, err := rolloutComplete(client, ns, name)(ctx); !ok {
				return false, fmt.Errorf("%s: %w", name, err)
			}
		}
		return true, nil
	}
	testutil.Eventually(t, 2*time.Minute, "20 Deployments available", allComplete)
	for _, name := range names {
		updateDeployment(t, client, ns, name, func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].Image = "nginx:2"
		})
	}
	testutil.Eventually(t, 2*time.Minute, "20 rollouts complete", allComplete)
}

// startLateController runs our Deployment controller on namespace ns until
// the test ends. Its informers' watches deliver events lateWatchDelay late;
// its writes go straight to the API server, and the returned counter counts
// the ones refused with 409 Conflict.
func startLateController(t *testing.T, config *rest.Config, ns string, disableReadYourWrites bool) *conflictCounter {
	t.Helper()
	conflicts := &conflictCounter{counts: map[string]int{}}
	writeConfig := rest.CopyConfig(config)
	writeConfig.Wrap(func(rt http.RoundTripper) http.RoundTripper { return conflicts.wrap(rt) })
	writer, err := kubernetes.NewForConfig(writeConfig)
	if err != nil {
		t.Fatal(err)
	}
	watchConfig := rest.CopyConfig(config)
	watchConfig.Wrap(func(rt http.RoundTripper) http.RoundTripper { return lateWatches{next: rt, delay: lateWatchDelay} })
	watcher, err := kubernetes.NewForConfig(watchConfig)
	if err != nil {
		t.Fatal(err)
	}

	runOurController(t, writer, watcher, ns, controller.Options[string]{DisableReadYourWrites: disableReadYourWrites})
	return conflicts
}

// conflictCounter counts the requests answered 409 Conflict, by method and
// resource path ("PUT deployments/status"): the client's own account of
// its failed writes.
type conflictCounter struct {
	mu     sync.Mutex
	counts map[string]int
}

func (c *conflictCounter) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := next.RoundTrip(req)
		if err == nil && resp.StatusCode == http.StatusConflict {
			c.mu.Lock()
			c.counts[req.Method+" "+resourcePath(req.URL.Path)]++
			c.mu.Unlock()
		}
		return resp, err
	})
}

func (c *conflictCounter) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.counts))
	for k, v := range c.counts {
		out[k] = v
	}
	return out
}

// resourcePath turns /apis/apps/v1/namespaces/ns/deployments/web/status
// into "deployments/status".
func resourcePath(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	for i, p := range parts {
		if p == "namespaces" && i+2 < len(parts) {
			rest := parts[i+2:]
			if len(rest) == 3 {
				return rest[0] + "/" + rest[2]
			}
			return rest[0]
		}
	}
	return path
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// lateWatches delays the body of every watch response by delay, byte for
// byte in order: each event the API server sends reaches the informer
// delay late. Lists and writes pass untouched.
type lateWatches struct {
	next  http.RoundTripper
	delay time.Duration
}

func (l lateWatches) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.next.RoundTrip(req)
	if err != nil || req.URL.Query().Get("watch") != "true" || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	resp.Body = newLateBody(resp.Body, l.delay)
	return resp, nil
}

// lateBody relays body, each chunk delay after it was read from the wire.
type lateBody struct {
	body   io.ReadCloser
	chunks chan lateChunk
	stop   chan struct{}
	once   sync.Once
	rest   []byte
	err    error
}

type lateChunk struct {
	data []byte
	due  time.Time
	err  error
}

func newLateBody(body io.ReadCloser, delay time.Duration) *lateBody {
	b := &lateBody{body: body, chunks: make(chan lateChunk, 1024), stop: make(chan struct{})}
	go func() {
		for {
			buf := make([]byte, 32<<10)
			n, err := body.Read(buf)
			select {
			case b.chunks <- lateChunk{data: buf[:n], due: time.Now().Add(delay), err: err}:
			case <-b.stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return b
}

func (b *lateBody) Read(p []byte) (int, error) {
	for len(b.rest) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		var c lateChunk
		select {
		case c = <-b.chunks:
		case <-b.stop:
			return 0, io.ErrClosedPipe
		}
		if wait := time.Until(c.due); wait > 0 {
			timer := time.NewTimer(wait)
			select {
			case <-timer.C:
			case <-b.stop:
				timer.Stop()
				return 0, io.ErrClosedPipe
			}
		}
		b.rest, b.err = c.data, c.err
	}
	n := copy(p, b.rest)
	b.rest = b.rest[n:]
	return n, nil
}

func (b *lateBody) Close() error {
	b.once.Do(func() { close(b.stop) })
	return b.body.Close()
}
