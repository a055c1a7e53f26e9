package binaries

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The pins are edited (and tidied) in internal/cpbuild; the package embeds a
// copy, which must follow.
func TestEmbeddedBuildModuleMatchesCPBuild(t *testing.T) {
	for name, embedded := range map[string][]byte{"go.mod": buildGoMod, "go.sum": buildGoSum} {
		want, err := os.ReadFile(filepath.Join("..", "..", "..", "internal", "cpbuild", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(embedded, want) {
			t.Errorf("buildmodule/%s.txt differs from internal/cpbuild/%s: run `go generate ./controller/envtest/binaries`", name, name)
		}
	}
}

func TestCacheKeyFollowsPinnedVersions(t *testing.T) {
	k1 := cacheKey([]byte("module example.com/x\n"), []byte("a v1 h1:x\n"))
	if k := cacheKey([]byte("module example.com/x\n"), []byte("a v1 h1:x\n")); k != k1 {
		t.Errorf("key changed without a change: %s then %s", k1, k)
	}
	if k := cacheKey([]byte("module example.com/x\n"), []byte("a v2 h1:y\n")); k == k1 {
		t.Error("key did not change when go.sum changed")
	}
}

func TestWriteBuildModuleWritesGoModAndSum(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "m")
	if err := writeBuildModule(dir); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]byte{"go.mod": buildGoMod, "go.sum": buildGoSum} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: err %v, equal %v", name, err, bytes.Equal(got, want))
		}
	}
}
