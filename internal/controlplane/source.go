package controlplane

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// SourceDirEnv names the environment variable that points at the build module
// (internal/cpbuild) when it cannot be found from the source tree, e.g. for a
// binary built with -trimpath and run outside the checkout.
const SourceDirEnv = "CTRLKIT_CPBUILD_DIR"

// rootModulePath is the module whose internal/cpbuild holds the build module.
const rootModulePath = "github.com/ctrlkit/ctrlkit"

// recipeVersion changes whenever the way binaries are built or laid out
// changes, so that old caches are not reused with a new layout.
const recipeVersion = "ctrlkit-cpbuild-1"

// findSourceDir returns the directory of the build module: $CTRLKIT_CPBUILD_DIR,
// else internal/cpbuild next to this source file, else internal/cpbuild of the
// ctrlkit checkout that contains the working directory.
func findSourceDir() (string, error) {
	if dir := os.Getenv(SourceDirEnv); dir != "" {
		if !isBuildModule(dir) {
			return "", fmt.Errorf("%s=%s: no go.mod and go.sum there", SourceDirEnv, dir)
		}
		return filepath.Abs(dir)
	}
	// Without -trimpath the compiler records absolute source paths.
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		dir := filepath.Join(filepath.Dir(file), "..", "cpbuild")
		if isBuildModule(dir) {
			return filepath.Clean(dir), nil
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && modulePath(data) == rootModulePath {
			if cp := filepath.Join(dir, "internal", "cpbuild"); isBuildModule(cp) {
				return cp, nil
			}
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	return "", errors.New("cannot find the control plane build module (internal/cpbuild of the ctrlkit checkout): run from inside the checkout or set " + SourceDirEnv)
}

func isBuildModule(dir string) bool {
	for _, f := range []string{"go.mod", "go.sum"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || !fi.Mode().IsRegular() {
			return false
		}
	}
	return true
}

// modulePath returns the module path declared by a go.mod file, or "".
func modulePath(gomod []byte) string {
	for line := range strings.Lines(string(gomod)) {
		fields := strings.Fields(line)
		if len(fields) >= 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`)
		}
	}
	return ""
}

// cacheKey names a set of binaries: it changes when a pinned version (go.mod,
// go.sum), the build recipe or the target platform changes.
func cacheKey(sourceDir string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s/%s\n", recipeVersion, runtime.GOOS, runtime.GOARCH)
	for _, name := range []string{"go.mod", "go.sum"} {
		data, err := os.ReadFile(filepath.Join(sourceDir, name))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", name, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}
