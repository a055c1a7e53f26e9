package main

import (
	"bytes"
	"io"
	"os"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/ctrlkit/ctrlkit/examples/internal/manifesttest"
)

// TestManifests decodes the operator's manifests strictly (crd.yaml is
// checked by the API server, in the e2e test) and checks that they fit
// together: the container's args parse, the Lease and registry Roles are
// in the namespaces the flags name and bound to the service account, and
// the pod is hardened.
func TestManifests(t *testing.T) {
	m := manifesttest.Load(t, "manifests/[dnr]*.yaml") // deployment, namespace, rbac
	manifesttest.CheckHardened(t, m, 65532, 30)
	if len(m.Deployments) != 1 || len(m.ServiceAccounts) != 1 {
		t.Fatalf("want one Deployment and one ServiceAccount, got %d and %d", len(m.Deployments), len(m.ServiceAccounts))
	}
	d, sa := m.Deployments[0], m.ServiceAccounts[0]
	if d.Spec.Template.Spec.ServiceAccountName != sa.Name || d.Namespace != sa.Namespace {
		t.Errorf("the Deployment runs as %s/%s, want %s/%s", d.Namespace, d.Spec.Template.Spec.ServiceAccountName, sa.Namespace, sa.Name)
	}
	o, err := parseOptions(d.Spec.Template.Spec.Containers[0].Args, io.Discard)
	if err != nil {
		t.Fatalf("the Deployment's args do not parse: %v", err)
	}
	subject := rbacv1.Subject{Kind: "ServiceAccount", Name: sa.Name, Namespace: sa.Namespace}
	for namespace, resource := range map[string]string{o.Manager.Lease.Namespace: "leases", o.RegistryNamespace: "configmaps"} {
		i := slices.IndexFunc(m.Roles, func(r rbacv1.Role) bool {
			return r.Namespace == namespace && slices.ContainsFunc(r.Rules, func(rule rbacv1.PolicyRule) bool {
				return slices.Contains(rule.Resources, resource)
			})
		})
		if i < 0 {
			t.Errorf("no Role for %s in namespace %s", resource, namespace)
			continue
		}
		bound := slices.ContainsFunc(m.RoleBindings, func(b rbacv1.RoleBinding) bool {
			return b.Namespace == namespace && b.RoleRef.Name == m.Roles[i].Name && slices.Contains(b.Subjects, subject)
		})
		if !bound {
			t.Errorf("Role %s/%s is not bound to %+v", namespace, m.Roles[i].Name, subject)
		}
		if !slices.ContainsFunc(m.Namespaces, func(n corev1.Namespace) bool { return n.Name == namespace }) {
			t.Errorf("namespace.yaml does not create %s", namespace)
		}
	}
	data, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"CGO_ENABLED=0 go build", "./examples/crd-operator", "FROM gcr.io/distroless/static:nonroot", "USER 65532:65532"} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
}
