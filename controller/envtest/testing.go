package envtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// StartForTest starts an environment for the test t and stops it when the
// test and its subtests finish, failed or not. It never skips: if the
// binaries are missing it builds them (minutes, the first time), and any
// error fails the test with the reason. Progress goes to t.Log unless
// opts.Log is set. An interrupt (SIGINT, SIGTERM) stops the environment
// before the test binary exits.
//
// Give such tests a generous -timeout: the first build alone can exceed go
// test's default of 10 minutes.
func StartForTest(t testing.TB, opts Options) *Environment {
	t.Helper()
	if opts.Log == nil {
		opts.Log = &testLogWriter{t: t}
	}
	env, err := Start(t.Context(), opts)
	if err != nil {
		t.Fatalf("start the envtest environment: %v", err)
	}
	release := stopOnInterrupt(env)
	t.Cleanup(func() {
		release()
		if err := env.Stop(); err != nil {
			t.Errorf("stop the envtest environment: %v", err)
		}
	})
	return env
}

// RunMain starts one environment for all the tests of a package, hands it
// to use (which typically stores it in a package variable), runs the tests,
// stops the environment and returns the exit code for os.Exit. Call it from
// TestMain:
//
//	var env *envtest.Environment
//
//	func TestMain(m *testing.M) {
//		os.Exit(envtest.RunMain(m, envtest.Options{CRDPaths: []string{"testdata/crds"}},
//			func(e *envtest.Environment) { env = e }))
//	}
//
// Tests then isolate themselves with env.Namespace(t). A failed start fails
// every test: RunMain prints why and returns 1 without running them.
// Progress goes to stderr unless opts.Log is set. An interrupt (SIGINT,
// SIGTERM) stops the environment before the test binary exits.
func RunMain(m *testing.M, opts Options, use func(*Environment)) int {
	if opts.Log == nil {
		opts.Log = os.Stderr
	}
	env, err := Start(context.Background(), opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "envtest: start the environment:", err)
		return 1
	}
	release := stopOnInterrupt(env)
	use(env)
	code := m.Run()
	release()
	if err := env.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "envtest:", err)
		return 1
	}
	return code
}

// Namespace creates a namespace for the test t, named after it, and deletes
// it when the test finishes. With tests in namespaces of their own, one
// environment serves a whole package (see RunMain). The deletion is not
// waited for: no namespace controller runs unless Options.Controllers
// names it, so the namespace may stay Terminating, out of the way.
func (env *Environment) Namespace(t testing.TB) string {
	t.Helper()
	ns, err := env.client.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: namespacePrefix(t.Name())},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create a namespace for %s: %v", t.Name(), err)
	}
	t.Cleanup(func() {
		// t.Context() is done by now.
		err := env.client.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
		if err != nil {
			t.Errorf("delete namespace %s: %v", ns.Name, err)
		}
	})
	return ns.Name
}

var notDNSLabel = regexp.MustCompile(`[^a-z0-9]+`)

// namespacePrefix turns a test name into a namespace generateName: a DNS
// label of lower-case letters, digits and dashes, short enough for the
// random suffix.
func namespacePrefix(testName string) string {
	p := strings.Trim(notDNSLabel.ReplaceAllString(strings.ToLower(testName), "-"), "-")
	if len(p) > 50 {
		p = strings.TrimRight(p[:50], "-")
	}
	if p == "" || p[0] < 'a' {
		p = "test-" + p
	}
	return p + "-"
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
