package controlplane

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestVersionLDFlagsStampsKubernetesVersion(t *testing.T) {
	flags := versionLDFlags("v1.37.2")
	for _, want := range []string{
		"-X k8s.io/component-base/version.gitVersion=v1.37.2",
		"-X k8s.io/component-base/version.gitMajor=1",
		"-X k8s.io/component-base/version.gitMinor=37",
		"-X k8s.io/client-go/pkg/version.gitVersion=v1.37.2",
	} {
		if !strings.Contains(flags, want) {
			t.Errorf("ldflags %q lack %q", flags, want)
		}
	}
}

func TestCacheKeyFollowsPinnedVersions(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/x\n")
	write("go.sum", "a v1 h1:x\n")
	k1, err := cacheKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	if k, _ := cacheKey(dir); k != k1 {
		t.Errorf("key changed without a change: %s then %s", k1, k)
	}
	write("go.sum", "a v2 h1:y\n")
	if k, _ := cacheKey(dir); k == k1 {
		t.Error("key did not change when go.sum changed")
	}
}

func TestFindSourceDirFindsBuildModule(t *testing.T) {
	dir, err := findSourceDir()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := modulePath(data), rootModulePath+"/internal/cpbuild"; got != want {
		t.Errorf("found module %q in %s, want %q", got, dir, want)
	}
}

func TestFindSourceDirHonoursEnv(t *testing.T) {
	t.Setenv(SourceDirEnv, t.TempDir())
	if _, err := findSourceDir(); err == nil || !strings.Contains(err.Error(), SourceDirEnv) {
		t.Errorf("empty %s dir: err = %v, want one naming the variable", SourceDirEnv, err)
	}
}
