package main

import (
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// manifests holds the typed objects of manifests/*.yaml.
type manifests struct {
	namespaces          []corev1.Namespace
	serviceAccounts     []corev1.ServiceAccount
	clusterRoles        []rbacv1.ClusterRole
	clusterRoleBindings []rbacv1.ClusterRoleBinding
	roles               []rbacv1.Role
	roleBindings        []rbacv1.RoleBinding
	deployments         []appsv1.Deployment
}

// loadManifests decodes every document strictly: an unknown or misspelt
// field fails the test, as kubectl apply --validate=strict would.
func loadManifests(t *testing.T) *manifests {
	t.Helper()
	files, err := filepath.Glob("manifests/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests found: %v", err)
	}
	m := &manifests{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(data), -1) {
			if strings.TrimSpace(stripComments(doc)) == "" {
				continue
			}
			var tm metav1.TypeMeta
			if err := yaml.Unmarshal([]byte(doc), &tm); err != nil {
				t.Fatalf("%s document %d: %v", file, i, err)
			}
			var target any
			switch tm.APIVersion + " " + tm.Kind {
			case "v1 Namespace":
				m.namespaces = append(m.namespaces, corev1.Namespace{})
				target = &m.namespaces[len(m.namespaces)-1]
			case "v1 ServiceAccount":
				m.serviceAccounts = append(m.serviceAccounts, corev1.ServiceAccount{})
				target = &m.serviceAccounts[len(m.serviceAccounts)-1]
			case "rbac.authorization.k8s.io/v1 ClusterRole":
				m.clusterRoles = append(m.clusterRoles, rbacv1.ClusterRole{})
				target = &m.clusterRoles[len(m.clusterRoles)-1]
			case "rbac.authorization.k8s.io/v1 ClusterRoleBinding":
				m.clusterRoleBindings = append(m.clusterRoleBindings, rbacv1.ClusterRoleBinding{})
				target = &m.clusterRoleBindings[len(m.clusterRoleBindings)-1]
			case "rbac.authorization.k8s.io/v1 Role":
				m.roles = append(m.roles, rbacv1.Role{})
				target = &m.roles[len(m.roles)-1]
			case "rbac.authorization.k8s.io/v1 RoleBinding":
				m.roleBindings = append(m.roleBindings, rbacv1.RoleBinding{})
				target = &m.roleBindings[len(m.roleBindings)-1]
			case "apps/v1 Deployment":
				m.deployments = append(m.deployments, appsv1.Deployment{})
				target = &m.deployments[len(m.deployments)-1]
			default:
				t.Fatalf("%s document %d: unexpected %s %s", file, i, tm.APIVersion, tm.Kind)
			}
			if err := yaml.UnmarshalStrict([]byte(doc), target); err != nil {
				t.Fatalf("%s document %d (%s): %v", file, i, tm.Kind, err)
			}
		}
	}
	return m
}

func stripComments(doc string) string {
	return regexp.MustCompile(`(?m)^\s*#.*$`).ReplaceAllString(doc, "")
}

func TestManifestsHangTogether(t *testing.T) {
	m := loadManifests(t)
	if len(m.namespaces) != 1 || len(m.serviceAccounts) != 1 || len(m.clusterRoles) != 1 || len(m.clusterRoleBindings) != 1 ||
		len(m.roles) != 1 || len(m.roleBindings) != 1 || len(m.deployments) != 1 {
		t.Fatalf("want one each of Namespace, ServiceAccount, ClusterRole(Binding), Role(Binding), Deployment; got %d %d %d %d %d %d %d",
			len(m.namespaces), len(m.serviceAccounts), len(m.clusterRoles), len(m.clusterRoleBindings), len(m.roles), len(m.roleBindings), len(m.deployments))
	}
	ns := m.namespaces[0].Name
	sa := m.serviceAccounts[0]
	d := m.deployments[0]
	if sa.Namespace != ns || d.Namespace != ns || m.roles[0].Namespace != ns || m.roleBindings[0].Namespace != ns {
		t.Errorf("objects outside namespace %s", ns)
	}
	if got := d.Spec.Template.Spec.ServiceAccountName; got != sa.Name {
		t.Errorf("Deployment runs as service account %q, want %q", got, sa.Name)
	}
	wantSubject := rbacv1.Subject{Kind: "ServiceAccount", Name: sa.Name, Namespace: ns}
	crb := m.clusterRoleBindings[0]
	if crb.RoleRef != (rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: m.clusterRoles[0].Name}) ||
		len(crb.Subjects) != 1 || crb.Subjects[0] != wantSubject {
		t.Errorf("ClusterRoleBinding %+v does not bind ClusterRole %s to %+v", crb, m.clusterRoles[0].Name, wantSubject)
	}
	rb := m.roleBindings[0]
	if rb.RoleRef != (rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: m.roles[0].Name}) ||
		len(rb.Subjects) != 1 || rb.Subjects[0] != wantSubject {
		t.Errorf("RoleBinding %+v does not bind Role %s to %+v", rb, m.roles[0].Name, wantSubject)
	}
	if sel := d.Spec.Selector.MatchLabels; len(sel) == 0 {
		t.Error("Deployment has no selector")
	} else {
		for k, v := range sel {
			if d.Spec.Template.Labels[k] != v {
				t.Errorf("template labels %v do not match selector %v", d.Spec.Template.Labels, sel)
			}
		}
	}

	if len(d.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("want one container, got %d", len(d.Spec.Template.Spec.Containers))
	}
	c := d.Spec.Template.Spec.Containers[0]
	o, err := parseOptions(c.Args, io.Discard)
	if err != nil {
		t.Fatalf("the Deployment's args do not parse: %v", err)
	}
	if o.Kubeconfig != "" || o.Master != "" {
		t.Error("the Deployment must use the in-cluster configuration")
	}
	if !o.LeaderElect || o.LeaderElectResourceNamespace != m.roles[0].Namespace {
		t.Errorf("leader election in namespace %q (enabled %v), but the Lease Role is in %q",
			o.LeaderElectResourceNamespace, o.LeaderElect, m.roles[0].Namespace)
	}

	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	for _, probe := range []struct {
		name  string
		p     *corev1.Probe
		path  string
		addr  string
		owner string
	}{
		{"liveness", c.LivenessProbe, "/healthz", o.HealthProbeBindAddress, "--health-probe-bind-address"},
		{"readiness", c.ReadinessProbe, "/readyz", o.HealthProbeBindAddress, "--health-probe-bind-address"},
	} {
		if probe.p == nil || probe.p.HTTPGet == nil {
			t.Errorf("no HTTP %s probe", probe.name)
			continue
		}
		if probe.p.HTTPGet.Path != probe.path {
			t.Errorf("%s probe path %q, want %q", probe.name, probe.p.HTTPGet.Path, probe.path)
		}
		_, port, err := net.SplitHostPort(probe.addr)
		if err != nil {
			t.Errorf("%s %q: %v", probe.owner, probe.addr, err)
			continue
		}
		if got := ports[probe.p.HTTPGet.Port.String()]; port != itoa(got) {
			t.Errorf("%s probe port %s = %d, but %s listens on %s", probe.name, probe.p.HTTPGet.Port.String(), got, probe.owner, port)
		}
	}
	if _, port, _ := net.SplitHostPort(o.MetricsBindAddress); port != itoa(ports["metrics"]) {
		t.Errorf("metrics port %d, but --metrics-bind-address is %q", ports["metrics"], o.MetricsBindAddress)
	}

	psc := d.Spec.Template.Spec.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser != 65532 {
		t.Errorf("pod securityContext %+v: want runAsNonRoot and runAsUser 65532 (the image's USER)", psc)
	}
	csc := c.SecurityContext
	if csc == nil || csc.AllowPrivilegeEscalation == nil || *csc.AllowPrivilegeEscalation ||
		csc.ReadOnlyRootFilesystem == nil || !*csc.ReadOnlyRootFilesystem || csc.Capabilities == nil || len(csc.Capabilities.Drop) == 0 {
		t.Errorf("container securityContext %+v: want no privilege escalation, a read-only root and dropped capabilities", csc)
	}
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
		t.Errorf("resources %+v: want cpu and memory requests and a memory limit", c.Resources)
	}
	if d.Spec.Template.Spec.TerminationGracePeriodSeconds == nil || *d.Spec.Template.Spec.TerminationGracePeriodSeconds <= 30 {
		t.Error("terminationGracePeriodSeconds must exceed the manager's 30s graceful shutdown")
	}
}

func TestDockerfile(t *testing.T) {
	data, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"FROM golang:",
		"CGO_ENABLED=0 go build",
		"./examples/deployment-controller",
		"FROM gcr.io/distroless/static:nonroot",
		"USER 65532:65532",
		`ENTRYPOINT ["/deployment-controller"]`,
	} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
}

func itoa(n int32) string { return strconv.Itoa(int(n)) }
