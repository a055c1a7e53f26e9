package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// e2eRecipe changes whenever the way the binary is built changes, so that
// an old cache entry is not reused.
const e2eRecipe = "ctrlkit-e2e-test-1"

// e2ePackage is the Kubernetes e2e suite's package.
const e2ePackage = "k8s.io/kubernetes/test/e2e"

// ensureE2EBinary returns the path of the e2e test binary built from the
// module at cpbuildDir (its go.mod and go.sum), building it into cacheDir
// first if it is not there.
func ensureE2EBinary(ctx context.Context, cpbuildDir, cacheDir string, log io.Writer) (string, error) {
	goMod, err := os.ReadFile(filepath.Join(cpbuildDir, "go.mod"))
	if err != nil {
		return "", err
	}
	goSum, err := os.ReadFile(filepath.Join(cpbuildDir, "go.sum"))
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%d\n", e2eRecipe, len(goMod))
	h.Write(goMod)
	h.Write(goSum)
	dir := filepath.Join(cacheDir, "e2e-"+hex.EncodeToString(h.Sum(nil))[:16])
	bin := filepath.Join(dir, "e2e.test")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}

	scratch, err := os.MkdirTemp("", "ctrlkit-e2e-build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(scratch)
	// A module of its own: the same requirements and replaces, another name.
	mod := regexp.MustCompile(`(?m)^module .*$`).ReplaceAll(goMod, []byte("module ctrlkit.local/e2ebuild"))
	if err := os.WriteFile(filepath.Join(scratch, "go.mod"), mod, 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(scratch, "go.sum"), goSum, 0o644); err != nil {
		return "", err
	}
	goCmd := func(args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = scratch
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		cmd.Stderr = log
		return cmd
	}
	// The pinned version, so that `go get` adds the e2e suite's own
	// requirements without moving Kubernetes.
	var version bytes.Buffer
	list := goCmd("list", "-m", "-f", "{{.Version}}", "k8s.io/kubernetes")
	list.Stdout = &version
	if err := list.Run(); err != nil {
		return "", fmt.Errorf("go list -m k8s.io/kubernetes: %w", err)
	}
	v := strings.TrimSpace(version.String())
	fmt.Fprintf(log, "conformance: building %s@%s (several minutes, once)\n", e2ePackage, v)
	if err := goCmd("get", e2ePackage+"/...@"+v).Run(); err != nil {
		return "", fmt.Errorf("go get %s: %w", e2ePackage, err)
	}
	out := filepath.Join(scratch, "e2e.test")
	if err := goCmd("test", "-c", "-o", out, e2ePackage).Run(); err != nil {
		return "", fmt.Errorf("go test -c %s: %w", e2ePackage, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// Rename last, so that a cached path always holds a complete binary.
	if err := copyFile(out, bin+".tmp"); err != nil {
		return "", err
	}
	return bin, os.Rename(bin+".tmp", bin)
}

// copyFile copies src to dst, executable; os.Rename could cross file systems.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
