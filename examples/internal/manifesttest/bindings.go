package manifesttest

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// CheckOneController checks the usual shape of a controller's manifests:
// one each of ServiceAccount, ClusterRole, ClusterRoleBinding, Role (for the
// Lease), RoleBinding and Deployment, all in one namespace; the bindings
// bind the roles to the service account, which the Deployment runs as; and
// the Deployment's selector matches its template.
func CheckOneController(t testing.TB, s *Set) {
	t.Helper()
	if len(s.ServiceAccounts) != 1 || len(s.ClusterRoles) != 1 || len(s.ClusterRoleBindings) != 1 ||
		len(s.Roles) != 1 || len(s.RoleBindings) != 1 || len(s.Deployments) != 1 {
		t.Fatalf("want one each of ServiceAccount, ClusterRole, ClusterRoleBinding, Role, RoleBinding, Deployment; got %d %d %d %d %d %d",
			len(s.ServiceAccounts), len(s.ClusterRoles), len(s.ClusterRoleBindings), len(s.Roles), len(s.RoleBindings), len(s.Deployments))
	}
	sa, d := s.ServiceAccounts[0], s.Deployments[0]
	ns := sa.Namespace
	if d.Namespace != ns || s.Roles[0].Namespace != ns || s.RoleBindings[0].Namespace != ns {
		t.Errorf("objects outside the service account's namespace %s", ns)
	}
	if len(s.Namespaces) > 0 && !slices.ContainsFunc(s.Namespaces, func(n corev1.Namespace) bool { return n.Name == ns }) {
		t.Errorf("the manifests create namespaces but not %s", ns)
	}
	if got := d.Spec.Template.Spec.ServiceAccountName; got != sa.Name {
		t.Errorf("Deployment runs as service account %q, want %q", got, sa.Name)
	}
	subject := rbacv1.Subject{Kind: "ServiceAccount", Name: sa.Name, Namespace: ns}
	crb, rb := s.ClusterRoleBindings[0], s.RoleBindings[0]
	if crb.RoleRef != (rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: s.ClusterRoles[0].Name}) ||
		len(crb.Subjects) != 1 || crb.Subjects[0] != subject {
		t.Errorf("ClusterRoleBinding %+v does not bind ClusterRole %s to %+v", crb, s.ClusterRoles[0].Name, subject)
	}
	if rb.RoleRef != (rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: s.Roles[0].Name}) ||
		len(rb.Subjects) != 1 || rb.Subjects[0] != subject {
		t.Errorf("RoleBinding %+v does not bind Role %s to %+v", rb, s.Roles[0].Name, subject)
	}
	sel := d.Spec.Selector
	if sel == nil || len(sel.MatchLabels) == 0 {
		t.Error("Deployment has no selector")
		return
	}
	for k, v := range sel.MatchLabels {
		if d.Spec.Template.Labels[k] != v {
			t.Errorf("template labels %v do not match selector %v", d.Spec.Template.Labels, sel.MatchLabels)
		}
	}
}

// CheckHardened checks the Deployment's first container: runs as non-root
// user uid (the image's USER), no privilege escalation, read-only root,
// dropped capabilities, cpu and memory requests and a memory limit, and a
// grace period longer than minGraceSeconds.
func CheckHardened(t testing.TB, s *Set, uid int64, minGraceSeconds int64) {
	t.Helper()
	d := s.Deployments[0]
	spec := d.Spec.Template.Spec
	if len(spec.Containers) != 1 {
		t.Fatalf("want one container, got %d", len(spec.Containers))
	}
	c := spec.Containers[0]
	psc := spec.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser != uid {
		t.Errorf("pod securityContext %+v: want runAsNonRoot and runAsUser %d", psc, uid)
	}
	csc := c.SecurityContext
	if csc == nil || csc.AllowPrivilegeEscalation == nil || *csc.AllowPrivilegeEscalation ||
		csc.ReadOnlyRootFilesystem == nil || !*csc.ReadOnlyRootFilesystem || csc.Capabilities == nil || len(csc.Capabilities.Drop) == 0 {
		t.Errorf("container securityContext %+v: want no privilege escalation, a read-only root and dropped capabilities", csc)
	}
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
		t.Errorf("resources %+v: want cpu and memory requests and a memory limit", c.Resources)
	}
	if spec.TerminationGracePeriodSeconds == nil || *spec.TerminationGracePeriodSeconds <= minGraceSeconds {
		t.Errorf("terminationGracePeriodSeconds must exceed %ds, the graceful shutdown", minGraceSeconds)
	}
}
