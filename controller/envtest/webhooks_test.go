package envtest

import (
	"os"
	"path/filepath"
	"testing"
)

// The configurations are read from a manifest as controller-gen or a
// kustomization writes it; other kinds are skipped.
func TestReadWebhookConfigurations(t *testing.T) {
	dir := t.TempDir()
	manifest := `apiVersion: v1
kind: Service
metadata: {name: webhook}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: m}
webhooks:
- name: default.example.com
  clientConfig: {service: {name: webhook, namespace: ns, path: /default}}
  sideEffects: None
  admissionReviewVersions: [v1]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: v}
webhooks:
- name: validate.example.com
  clientConfig: {service: {name: webhook, namespace: ns, path: /validate}}
  sideEffects: None
  admissionReviewVersions: [v1]
`
	if err := os.WriteFile(filepath.Join(dir, "webhooks.yaml"), []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	validating, mutating, err := readWebhookConfigurations([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(validating) != 1 || validating[0].Name != "v" || *validating[0].Webhooks[0].ClientConfig.Service.Path != "/validate" {
		t.Errorf("validating %+v, want v calling /validate", validating)
	}
	if len(mutating) != 1 || mutating[0].Name != "m" || *mutating[0].Webhooks[0].ClientConfig.Service.Path != "/default" {
		t.Errorf("mutating %+v, want m calling /default", mutating)
	}
	if _, _, err := readWebhookConfigurations([]string{filepath.Join(dir, "missing.yaml")}); err == nil {
		t.Error("a missing path read without error")
	}
}
