package manifesttest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// Set holds the typed objects of a folder of manifests.
type Set struct {
	Namespaces          []corev1.Namespace
	ServiceAccounts     []corev1.ServiceAccount
	ClusterRoles        []rbacv1.ClusterRole
	ClusterRoleBindings []rbacv1.ClusterRoleBinding
	Roles               []rbacv1.Role
	RoleBindings        []rbacv1.RoleBinding
	Deployments         []appsv1.Deployment
	Services            []corev1.Service

	MutatingWebhookConfigurations   []admissionv1.MutatingWebhookConfiguration
	ValidatingWebhookConfigurations []admissionv1.ValidatingWebhookConfiguration
}

var (
	documentSeparator = regexp.MustCompile(`(?m)^---\s*$`)
	commentLine       = regexp.MustCompile(`(?m)^\s*#.*$`)
)

// Load decodes every document of the files matching the globs strictly:
// an unknown or misspelt field fails the test, as kubectl apply
// --validate=strict would, and so does a kind Set does not hold.
func Load(t testing.TB, globs ...string) *Set {
	t.Helper()
	var files []string
	for _, glob := range globs {
		matches, err := filepath.Glob(glob)
		if err != nil || len(matches) == 0 {
			t.Fatalf("no manifests match %s: %v", glob, err)
		}
		files = append(files, matches...)
	}
	s := &Set{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range documentSeparator.Split(string(data), -1) {
			if strings.TrimSpace(commentLine.ReplaceAllString(doc, "")) == "" {
				continue
			}
			var tm metav1.TypeMeta
			if err := yaml.Unmarshal([]byte(doc), &tm); err != nil {
				t.Fatalf("%s document %d: %v", file, i, err)
			}
			target := s.add(tm)
			if target == nil {
				t.Fatalf("%s document %d: unexpected %s %s", file, i, tm.APIVersion, tm.Kind)
			}
			if err := yaml.UnmarshalStrict([]byte(doc), target); err != nil {
				t.Fatalf("%s document %d (%s): %v", file, i, tm.Kind, err)
			}
		}
	}
	return s
}

// add appends a zero object of tm's kind and returns a pointer to it, or
// nil for a kind Set does not hold.
func (s *Set) add(tm metav1.TypeMeta) any {
	switch tm.APIVersion + " " + tm.Kind {
	case "v1 Namespace":
		return appendZero(&s.Namespaces)
	case "v1 ServiceAccount":
		return appendZero(&s.ServiceAccounts)
	case "rbac.authorization.k8s.io/v1 ClusterRole":
		return appendZero(&s.ClusterRoles)
	case "rbac.authorization.k8s.io/v1 ClusterRoleBinding":
		return appendZero(&s.ClusterRoleBindings)
	case "rbac.authorization.k8s.io/v1 Role":
		return appendZero(&s.Roles)
	case "rbac.authorization.k8s.io/v1 RoleBinding":
		return appendZero(&s.RoleBindings)
	case "apps/v1 Deployment":
		return appendZero(&s.Deployments)
	case "v1 Service":
		return appendZero(&s.Services)
	case "admissionregistration.k8s.io/v1 MutatingWebhookConfiguration":
		return appendZero(&s.MutatingWebhookConfigurations)
	case "admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration":
		return appendZero(&s.ValidatingWebhookConfigurations)
	default:
		return nil
	}
}

func appendZero[T any](list *[]T) *T {
	var zero T
	*list = append(*list, zero)
	return &(*list)[len(*list)-1]
}
