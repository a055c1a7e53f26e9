package storagemigration_test

import (
	"context"
	"log"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/controller/storagemigration"
)

// After v1 became the storage version of widgets.example.com, move the
// objects stored at v1alpha1 and drop v1alpha1 from storedVersions; then
// v1alpha1 can be removed from the CRD.
func ExampleMigrate() {
	cfg := &rest.Config{Host: "https://cluster.example.com"} // e.g. from ctrl.GetConfig
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		log.Fatal(err)
	}
	if err := storagemigration.Migrate(context.Background(), client, "widgets.example.com", storagemigration.Options{}); err != nil {
		log.Fatal(err) // run it again: it resumes
	}
}
