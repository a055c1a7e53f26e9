package certwatcher_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctrlkit/ctrlkit/controller/internal/certtest"
	"github.com/ctrlkit/ctrlkit/controller/internal/certwatcher"
)

func TestReloadsOnChangeAndKeepsTheLastGoodPair(t *testing.T) {
	dir := t.TempDir()
	certPath, keyPath := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	certtest.WriteCert(t, dir)
	w, err := certwatcher.New(certPath, keyPath)
	if err != nil {
		t.Fatal(err)
	}
	first, err := w.GetCertificate(nil)
	if err != nil || first == nil {
		t.Fatalf("GetCertificate: %v %v", first, err)
	}
	if again, _ := w.GetCertificate(nil); again != first {
		t.Error("an unchanged pair was loaded again")
	}

	certtest.WriteCert(t, dir)
	second, _ := w.GetCertificate(nil)
	if bytes.Equal(second.Certificate[0], first.Certificate[0]) {
		t.Fatal("the replaced pair is not served")
	}

	if err := os.WriteFile(keyPath, []byte("half written"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := w.GetCertificate(nil); err != nil || got != second {
		t.Errorf("with a broken key: %v %v, want the last good pair", got, err)
	}
	if err := os.Remove(certPath); err != nil {
		t.Fatal(err)
	}
	if got, err := w.GetCertificate(nil); err != nil || got != second {
		t.Errorf("with no certificate file: %v %v, want the last good pair", got, err)
	}
}

func TestNewFailsWithoutAPair(t *testing.T) {
	dir := t.TempDir()
	if _, err := certwatcher.New(filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")); err == nil {
		t.Error("New without files did not fail")
	}
	os.WriteFile(filepath.Join(dir, "tls.crt"), []byte("x"), 0o600)
	os.WriteFile(filepath.Join(dir, "tls.key"), []byte("y"), 0o600)
	if _, err := certwatcher.New(filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")); err == nil {
		t.Error("New with files that are no pair did not fail")
	}
}
