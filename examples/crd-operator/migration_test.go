package main

import "testing"

// storageVersionHash is the API server's: apps/v1 Deployments are
// 8aSe+NMegvE= in every cluster's discovery.
func TestStorageVersionHash(t *testing.T) {
	if got := storageVersionHash("apps", "v1", "Deployment"); got != "8aSe+NMegvE=" {
		t.Errorf("storageVersionHash(apps, v1, Deployment) = %q, want 8aSe+NMegvE=", got)
	}
}
