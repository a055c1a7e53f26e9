package envtestuser

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/controller/envtest"
	"github.com/ctrlkit/ctrlkit/controller/envtest/binaries"
)

// An API-server-only environment runs the binaries of the directory that
// $KUBEBUILDER_ASSETS names, as a user's setup-envtest directory: it neither
// builds nor downloads them, and its API server stores objects. The
// directory holds links to the binaries of the package's shared
// environment, so the test costs one start, not a build.
func TestStartsFromKubebuilderAssets(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"etcd", "kube-apiserver"} {
		linkOrCopy(t, env.Binaries().Path(name), filepath.Join(dir, name))
	}
	t.Setenv(binaries.AssetsEnv, dir)

	var log syncBuffer
	assetsEnv := envtest.StartForTest(t, envtest.Options{Log: &log})

	for _, name := range []string{"etcd", "kube-apiserver"} {
		if got, want := assetsEnv.Binaries().Path(name), filepath.Join(dir, name); got != want {
			t.Errorf("%s runs from %s, want %s", name, got, want)
		}
	}
	// Before the start, the log has one line: where the binaries come from.
	// A build, a download or a version warning would add lines.
	before, _, _ := strings.Cut(log.String(), "envtest: starting")
	want := "envtest: using etcd, kube-apiserver from " + dir + " ($" + binaries.AssetsEnv + ")\n"
	if before != want {
		t.Errorf("the log before the start is\n%s\nwant only\n%s", before, want)
	}

	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "from-assets", Namespace: "default"},
		Data:       map[string]string{"source": "assets"},
	}
	client := assetsEnv.Client().CoreV1().ConfigMaps("default")
	if _, err := client.Create(t.Context(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := client.Get(t.Context(), cm.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Data["source"] != "assets" || got.UID == "" {
		t.Errorf("read back %v (uid %q), want data source=assets and a uid", got.Data, got.UID)
	}
}

// linkOrCopy puts the program src at dst: a symbolic link where the system
// allows one (no copy of a hundred megabytes), else a copy.
func linkOrCopy(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.Symlink(src, dst); err == nil {
		return
	}
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// syncBuffer is a bytes.Buffer that the environment's progress and the
// test can use at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
