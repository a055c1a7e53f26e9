//go:build e2e

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"

	"github.com/ctrlkit/ctrlkit/controller/envtest"
	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/controller/storagemigration"
	v1 "github.com/ctrlkit/ctrlkit/examples/crd-operator/api/v1"
	"github.com/ctrlkit/ctrlkit/examples/crd-operator/api/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/etcdtest"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// TestWebAppUpgradeUnderLoadE2E upgrades the example from its "old
// release" (the WebApp CRD with v1alpha1 alone, served and stored) to
// this one (v1 the storage version, v1alpha1 converted by the operator's
// webhook) while clients keep creating and updating WebApps at v1alpha1,
// in the order the README documents, with its kubectl commands:
//
//  1. the new CRD with v1 served, v1alpha1 still stored, and the
//     conversion webhook (no request needs a conversion yet):
//     kubectl patch --local (upgradeStep1Patch) | kubectl apply;
//  2. the new operator (its RBAC first), whose webhook is serving and
//     whose caBundle is in the CRD, proved by a conversion through the API
//     server;
//  3. v1 the storage version: kubectl apply of the generated CRD as it
//     is, which keeps the caBundle the operator wrote;
//  4. the operator's own storage migration (--migrate-storage), which
//     rewrites the WebApps still at v1alpha1 and prunes storedVersions.
//
// The API server cannot reach a Service here, so the CRD applied calls
// the operator's address instead (crdCallingURL).
//
// No client request fails (client-go's own retries aside), etcd holds
// every WebApp at v1 afterwards, storedVersions is [v1], and the operator
// has reconciled WebApps written at v1alpha1 in each step.
func TestWebAppUpgradeUnderLoadE2E(t *testing.T) {
	env := envtest.StartForTest(t, envtest.Options{Kubectl: true})
	ctx, cfg := t.Context(), env.RESTConfig()
	crds := dynamic.NewForConfigOrDie(cfg).Resource(crdResource)
	kube := kubernetes.NewForConfigOrDie(cfg)
	kubectl := func(stdin []byte, args ...string) []byte {
		t.Helper()
		cmd := env.Kubectl(ctx, args...)
		cmd.Stdin = bytes.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, errOutput(err))
		}
		return out
	}
	// The operator listens where the CRD's conversion webhook calls.
	addr := freeAddr(t)
	crdFile := crdCallingURL(t, "https://"+addr+conversionPath)

	// The old release, and WebApps it stored.
	oldCRD, err := json.Marshal(oldReleaseCRD(readCRD(t, crdFile)))
	if err != nil {
		t.Fatal(err)
	}
	kubectl(oldCRD, "apply", "-f", "-")
	kubectl(nil, "apply", "-f", "manifests/namespace.yaml")
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	alpha := dynamic.NewForConfigOrDie(loadConfig(cfg)).Resource(v1alpha1.Resource.GroupVersionResource()).Namespace("shop")
	testutil.Eventually(t, time.Minute, "the old release's CRD to serve v1alpha1", func(ctx context.Context) (bool, error) {
		_, err := alpha.List(ctx, metav1.ListOptions{Limit: 1})
		return err == nil, err
	})
	const before = 100
	for i := range before {
		if _, err := writeV1alpha1(ctx, alpha, fmt.Sprintf("old-%03d", i)); err != nil {
			t.Fatal(err)
		}
	}
	// client-go's REST client metrics are process-wide, registered by the
	// first Manager, as a process does before its first request; here the
	// clients start before the operator does.
	if _, err := manager.New(manager.Options{RESTClientMetrics: true}); err != nil {
		t.Fatal(err)
	}
	upgradeStart := time.Now()
	written := &phases{}
	load := startLoad(t, 3, func(ctx context.Context, name string) (int64, error) {
		n, err := writeV1alpha1(ctx, alpha, name)
		if err == nil {
			written.add(name)
		}
		return n, err
	})
	waitWritten := func(what string) {
		t.Helper()
		n := load.requests.Load()
		testutil.Eventually(t, time.Minute, "the clients to write "+what, testutil.True(func() bool { return load.requests.Load() >= n+30 }))
		written.next()
	}
	waitWritten("at the old release")

	// 1. The new CRD, v1alpha1 still stored.
	kubectl(kubectl(nil, "patch", "--local", "-f", crdFile, "--type=json", "-p", upgradeStep1Patch, "-o", "json"), "apply", "-f", "-")
	waitWritten("after step 1, the new CRD with v1alpha1 stored")

	// 2. The new operator (its RBAC first), its webhook serving and trusted.
	kubectl(nil, "apply", "-f", "manifests/role.yaml", "-f", "manifests/rbac.yaml")
	startWebhookOperator(t, cfg, "--webhook-bind-address="+addr, "--storage-migration-method=list-and-patch")
	v1Apps := dynamic.NewForConfigOrDie(cfg).Resource(v1.Resource.GroupVersionResource()).Namespace("shop")
	testutil.Eventually(t, time.Minute, "a conversion through the webhook (a dry-run create at v1)", func(ctx context.Context) (bool, error) {
		_, err := v1Apps.Create(ctx, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": v1.SchemeGroupVersion.String(), "kind": v1.Kind.Kind,
			"metadata": map[string]any{"generateName": "probe-"}, "spec": map[string]any{"image": map[string]any{"repository": "nginx"}},
		}}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err == nil, err
	})
	waitWritten("after step 2, the operator serving conversions")
	atV1alpha1 := etcdtest.CountByAPIVersion(t, env.EtcdURL(), webAppsKeyPrefix)[v1alpha1.Resource.GroupVersion().String()]

	// 3. v1 stored: the generated CRD as it is.
	switched := time.Now()
	kubectl(nil, "apply", "-f", crdFile)
	if crd, err := crds.Get(ctx, crdName, metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	} else if bundle, _, _ := unstructured.NestedString(crd.Object, "spec", "conversion", "webhook", "clientConfig", "caBundle"); bundle == "" {
		t.Fatal("kubectl apply of the generated CRD removed the caBundle the operator wrote")
	}

	// 4. The operator's storage migration.
	testutil.Eventually(t, 3*time.Minute, "the operator's migration to prune storedVersions to [v1]", func(ctx context.Context) (bool, error) {
		crd, err := crds.Get(ctx, crdName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		stored, _, _ := unstructured.NestedStringSlice(crd.Object, "status", "storedVersions")
		return slices.Equal(stored, []string{"v1"}), fmt.Errorf("storedVersions %v", stored)
	})
	migrated := time.Since(switched)
	waitWritten("after step 4, the migration")

	requests, failures := load.stop()
	t.Logf("upgrade under load: %d requests at v1alpha1 in %v, %d failed; %d WebApps at v1alpha1 in etcd before the switch, migrated %v after it",
		requests, time.Since(upgradeStart).Round(time.Millisecond), failures, atV1alpha1, migrated.Round(time.Millisecond))
	if failures > 0 {
		t.Errorf("%d of %d requests failed during the upgrade", failures, requests)
	}
	if got := etcdtest.CountByAPIVersion(t, env.EtcdURL(), webAppsKeyPrefix); len(got) != 1 || got[v1.SchemeGroupVersion.String()] == 0 {
		t.Errorf("etcd holds WebApps at %v after the migration, want all at v1", got)
	}
	testutil.Eventually(t, time.Minute, "the StorageMigrationSucceeded event on the CRD", func(ctx context.Context) (bool, error) {
		list, err := kube.EventsV1().Events(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		return slices.ContainsFunc(list.Items, func(e eventsv1.Event) bool {
			return e.Reason == storagemigration.ReasonSucceeded && e.Regarding.Name == crdName
		}), nil
	})

	// The operator reads v1 and reconciles what was written at v1alpha1
	// in every step: the Deployment has the image of the update.
	for _, name := range written.samples() {
		testutil.Eventually(t, 2*time.Minute, "the Deployment of "+name+" at nginx:1.28", func(ctx context.Context) (bool, error) {
			d, err := kube.AppsV1().Deployments("shop").Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			image := d.Spec.Template.Spec.Containers[0].Image
			return image == "nginx:1.28", fmt.Errorf("image %s", image)
		})
	}
}

// webAppsKeyPrefix is where etcd holds the WebApps of namespace shop.
const webAppsKeyPrefix = "/registry/example.ctrlkit.dev/webapps/shop/"

// writeV1alpha1 creates the WebApp name at v1alpha1 (image nginx:1.27)
// and updates it (nginx:1.28), as a client of the old release does.
func writeV1alpha1(ctx context.Context, api dynamic.ResourceInterface, name string) (requests int64, err error) {
	app := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": v1alpha1.Resource.GroupVersion().String(), "kind": v1alpha1.Resource.Kind,
		"metadata": map[string]any{"name": name}, "spec": map[string]any{"image": "nginx:1.27"},
	}}
	if _, err := api.Create(ctx, app, metav1.CreateOptions{}); err != nil {
		return 1, fmt.Errorf("create: %w", err)
	}
	return 2, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		app, err := api.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("get: %w", err)
		}
		if err := unstructured.SetNestedField(app.Object, "nginx:1.28", "spec", "image"); err != nil {
			return err
		}
		_, err = api.Update(ctx, app, metav1.UpdateOptions{})
		return err
	})
}

// upgradeStep1Patch makes v1alpha1, not v1, the storage version of the
// generated CRD, whose versions are v1 and v1alpha1 in this order (the
// tests check that): the README's step 1.
const upgradeStep1Patch = `[{"op":"test","path":"/spec/versions/0/name","value":"v1"},{"op":"replace","path":"/spec/versions/0/storage","value":false},` +
	`{"op":"test","path":"/spec/versions/1/name","value":"v1alpha1"},{"op":"replace","path":"/spec/versions/1/storage","value":true}]`

// crdCallingURL writes the generated CRD with its conversion webhook
// calling url instead of the Service, which the test's API server cannot
// reach, into a file of the test and returns its path.
func crdCallingURL(t *testing.T, url string) string {
	crd := readCRD(t, "manifests/example.ctrlkit.dev_webapps.yaml")
	unstructured.RemoveNestedField(crd.Object, "spec", "conversion", "webhook", "clientConfig", "service")
	if err := unstructured.SetNestedField(crd.Object, url, "spec", "conversion", "webhook", "clientConfig", "url"); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(crd.Object)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "crd.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// readCRD reads the CRD in the file at path.
func readCRD(t *testing.T, path string) *unstructured.Unstructured {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	crd := &unstructured.Unstructured{}
	if err := utilyaml.NewYAMLOrJSONDecoder(f, 4096).Decode(&crd.Object); err != nil {
		t.Fatal(err)
	}
	return crd
}

// freeAddr is a 127.0.0.1 address with a port free a moment ago.
func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// errOutput is the standard error of a command that failed.
func errOutput(err error) []byte {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.Stderr
	}
	return nil
}

// oldReleaseCRD is crd as it was before v1: v1alpha1 alone, stored, with
// no conversion.
func oldReleaseCRD(crd *unstructured.Unstructured) *unstructured.Unstructured {
	old := crd.DeepCopy()
	versions, _, _ := unstructured.NestedSlice(old.Object, "spec", "versions")
	versions = slices.DeleteFunc(versions, func(v any) bool { return v.(map[string]any)["name"] != "v1alpha1" })
	versions[0].(map[string]any)["storage"] = true
	_ = unstructured.SetNestedSlice(old.Object, versions, "spec", "versions")
	unstructured.RemoveNestedField(old.Object, "spec", "conversion")
	return old
}

// phases records the names of the WebApps written in each step of the
// upgrade.
type phases struct {
	mu    sync.Mutex
	names []string
	ends  []int // of each step, in names
}

func (p *phases) add(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.names = append(p.names, name)
}

// next ends a step.
func (p *phases) next() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ends = append(p.ends, len(p.names))
}

// samples are the first and the last WebApp written in each step.
func (p *phases) samples() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	set := map[string]bool{}
	from := 0
	for _, end := range p.ends {
		if end > from {
			set[p.names[from]], set[p.names[end-1]] = true, true
		}
		from = end
	}
	return slices.Sorted(maps.Keys(set))
}
