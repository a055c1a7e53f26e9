package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"math"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"

	"github.com/ctrlkit/ctrlkit/controller/storagemigration"
	v1 "github.com/ctrlkit/ctrlkit/examples/crd-operator/api/v1"
	"github.com/ctrlkit/ctrlkit/examples/crd-operator/api/v1alpha1"
)

// storageMigration runs on the elected replica (--migrate-storage) and,
// once, moves the WebApps that etcd still holds at v1alpha1 to v1 and
// prunes the CRD's status.storedVersions to [v1], so that v1alpha1 can
// later be dropped from the CRD. It waits, in order:
//
//  1. until the API server stores WebApps at v1: its discovery's
//     storageVersionHash is v1's. This is the API server's own word that
//     it has switched (the CRD's spec says what was asked, not when it was
//     done); an object rewritten before that would stay at v1alpha1.
//  2. until a real conversion passes through the API server: a dry-run
//     create of a v1alpha1 WebApp, which it converts to v1 (the storage
//     version) and back through the conversion webhook. It is sent in the
//     operator's own namespace, which the admission webhooks leave out.
//
// Then it calls storagemigration.Migrate, again with a growing pause while
// it fails (it is resumable), until it succeeds or the replica stops
// leading. A failure never stops the operator: it is logged and recorded
// as an event on the CRD.
type storageMigration struct {
	crds      dynamic.Interface
	discovery discovery.DiscoveryInterface
	// namespace receives the dry-run conversion probe.
	namespace string
	method    storagemigration.Method
	recorder  events.EventRecorder
	// poll is how often steps 1 and 2 look again.
	poll time.Duration
}

func (m *storageMigration) Name() string             { return "storage migration" }
func (m *storageMigration) NeedLeaderElection() bool { return true }

func (m *storageMigration) Run(ctx context.Context) error {
	log := klog.FromContext(ctx).WithValues("crd", crdName)
	waitFor := func(what string, cond func(context.Context) error) bool {
		var last string
		err := wait.PollUntilContextCancel(ctx, m.poll, true, func(ctx context.Context) (bool, error) {
			err := cond(ctx)
			if err != nil && err.Error() != last {
				last = err.Error()
				log.Info("Storage migration waits for "+what, "reason", last)
			}
			return err == nil, nil
		})
		return err == nil
	}
	if !waitFor("the API server to store v1", m.storesV1) {
		return nil // no longer leading, or stopping
	}
	if m.migrated(ctx) {
		log.V(2).Info("Storage migration: nothing to do, status.storedVersions is [v1]")
		return nil
	}
	if !waitFor("a conversion through the webhook", m.converts) {
		return nil
	}
	start := time.Now()
	backoff := wait.Backoff{Duration: time.Second, Factor: 2, Jitter: 0.1, Steps: math.MaxInt32, Cap: time.Minute}
	_ = wait.ExponentialBackoffWithContext(ctx, backoff, func(ctx context.Context) (bool, error) {
		err := storagemigration.Migrate(ctx, m.crds, crdName, storagemigration.Options{Method: m.method, Recorder: m.recorder})
		if err != nil && ctx.Err() == nil {
			log.Error(err, "Storage migration failed; trying again")
		}
		return err == nil, nil
	})
	if ctx.Err() == nil {
		log.Info("Storage migration done: every WebApp is stored at v1", "duration", time.Since(start))
	}
	return nil
}

// storesV1 is nil once the API server's discovery says that it stores
// WebApps at v1.
func (m *storageMigration) storesV1(context.Context) error {
	resources, err := m.discovery.ServerResourcesForGroupVersion(v1.SchemeGroupVersion.String())
	if err != nil {
		return err
	}
	want := storageVersionHash(v1.Kind.Group, v1.Kind.Version, v1.Kind.Kind)
	for _, r := range resources.APIResources {
		if r.Name == v1.Resource.Resource {
			if r.StorageVersionHash != want {
				return fmt.Errorf("its storageVersionHash is %q, v1's is %q", r.StorageVersionHash, want)
			}
			return nil
		}
	}
	return fmt.Errorf("%s is not served", v1.Resource.GroupVersionResource())
}

// migrated is whether the CRD's status.storedVersions is [v1] already
// (as on a first install at v1): then no conversion needs to be waited
// for. On an error it says no; Migrate reads the CRD again.
func (m *storageMigration) migrated(ctx context.Context) bool {
	crd, err := m.crds.Resource(crdResource).Get(ctx, crdName, metav1.GetOptions{})
	if err != nil {
		return false
	}
	stored, _, _ := unstructured.NestedStringSlice(crd.Object, "status", "storedVersions")
	return slices.Equal(stored, []string{v1.Resource.Version})
}

// crdResource is apiextensions.k8s.io/v1's CustomResourceDefinitions.
var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// storageVersionHash is the storageVersionHash the API server gives a
// resource stored as group/version, kind (k8s.io/apiserver's
// discovery.StorageVersionHash, which the operator does not import for
// four lines).
func storageVersionHash(group, version, kind string) string {
	sum := sha256.Sum256([]byte(group + "/" + version + "/" + kind))
	return base64.StdEncoding.EncodeToString(sum[:8])
}

// converts is nil once a dry-run create of a v1alpha1 WebApp succeeds:
// the API server has converted it to v1 through the webhook, and back.
func (m *storageMigration) converts(ctx context.Context) error {
	probe := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": v1alpha1.Resource.GroupVersion().String(), "kind": v1alpha1.Resource.Kind,
		"metadata": map[string]any{"generateName": "storage-migration-probe-", "namespace": m.namespace},
		"spec":     map[string]any{"image": "storage-migration-probe:1"},
	}}
	_, err := m.crds.Resource(v1alpha1.Resource.GroupVersionResource()).Namespace(m.namespace).
		Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	return err
}
