package binaries

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctrlkit/ctrlkit/controller/envtest/binaries/internal/gobuild"
)

// A cache directory may hold only what an APIServerOnly build made: it
// serves that mode, and a Full start sees what is missing.
func TestLoadBinariesNeedsOnlyTheModesPrograms(t *testing.T) {
	dir := t.TempDir()
	if err := writeManifest(dir, manifest{Versions: map[string]string{kubernetesModule: "v1.37.2", etcdModule: "v3.7.0"}}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"etcd", "kube-apiserver"} {
		if err := os.WriteFile(filepath.Join(dir, gobuild.ExeName(name)), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	b, err := loadBinaries(dir, Options{}.programs())
	if err != nil {
		t.Fatalf("APIServerOnly: %v", err)
	}
	if b.KubernetesVersion() != "v1.37.2" {
		t.Errorf("KubernetesVersion = %q", b.KubernetesVersion())
	}
	if _, err := loadBinaries(dir, Options{Full: true}.programs()); err == nil {
		t.Error("Full loaded from a cache without kwok, kcm and the scheduler")
	}
}

func TestCacheDirHonoursEnv(t *testing.T) {
	want := t.TempDir()
	t.Setenv(CacheDirEnv, want)
	if got, err := CacheDir(); err != nil || got != want {
		t.Errorf("CacheDir() = %q, %v; want %q", got, err, want)
	}
}
