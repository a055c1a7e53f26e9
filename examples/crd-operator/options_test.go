package main

import (
	"io"
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/controller/storagemigration"
)

// --metrics-cert-from-webhook-secret serves /metrics from the webhooks'
// Secret: it needs the webhooks and HTTPS, and no certificate files.
func TestMetricsCertFromWebhookSecretFlags(t *testing.T) {
	o, err := parseOptions([]string{"--webhook-bind-address=:9443", "--metrics-secure", "--metrics-cert-from-webhook-secret",
		"--metrics-service=metrics"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !o.Webhooks.MetricsFromSecret || o.Webhooks.MetricsService != "metrics" {
		t.Errorf("webhook options %+v; want the metrics served from the Secret, for Service metrics", o.Webhooks)
	}
	for _, tc := range []struct {
		args []string
		want []string // in the error
	}{
		{[]string{"--metrics-cert-from-webhook-secret"}, []string{"needs --webhook-bind-address", "needs --metrics-secure"}},
		{[]string{"--metrics-cert-from-webhook-secret", "--webhook-bind-address=:9443", "--metrics-secure", "--metrics-cert-path=/certs"},
			[]string{"--metrics-cert-path"}},
	} {
		_, err := parseOptions(tc.args, io.Discard)
		for _, want := range tc.want {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("parseOptions(%q) = %v; want an error with %q", tc.args, err, want)
			}
		}
	}
}

// --migrate-storage is on by default, with the method chosen by the API
// server's answer; --storage-migration-method names one, or fails.
func TestStorageMigrationFlags(t *testing.T) {
	o, err := parseOptions(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !o.MigrateStorage || o.MigrationMethod != storagemigration.Auto {
		t.Errorf("defaults: migrate %v by %v; want true by Auto", o.MigrateStorage, o.MigrationMethod)
	}
	o, err = parseOptions([]string{"--migrate-storage=false", "--storage-migration-method=list-and-patch"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.MigrateStorage || o.MigrationMethod != storagemigration.ListAndPatch {
		t.Errorf("migrate %v by %v; want false by ListAndPatch", o.MigrateStorage, o.MigrationMethod)
	}
	if _, err := parseOptions([]string{"--storage-migration-method=rewrite"}, io.Discard); err == nil || !strings.Contains(err.Error(), "--storage-migration-method") {
		t.Errorf("an unknown method: %v; want an error naming the flag", err)
	}
}
