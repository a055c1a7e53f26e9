package manifesttest

import (
	"fmt"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	k8stesting "k8s.io/client-go/testing"
)

// Request is one API request as RBAC sees it. Resource may be
// "resource/subresource".
type Request struct {
	Group, Resource, Verb string
}

func (r Request) String() string {
	if r.Group == "" {
		return r.Verb + " " + r.Resource
	}
	return r.Verb + " " + r.Resource + "." + r.Group
}

// RequestOf is the RBAC view of a fake clientset action.
func RequestOf(a k8stesting.Action) Request {
	res := a.GetResource()
	resource := res.Resource
	if sub := a.GetSubresource(); sub != "" {
		resource += "/" + sub
	}
	return Request{Group: res.Group, Resource: resource, Verb: a.GetVerb()}
}

// CheckRBAC checks the ClusterRole and Role of s against the requests a
// controller made, both ways: every action must be allowed (a Role only in
// its namespace), and every granted rule must have been used by some action
// or be listed in mayBeUnused with the reason it is needed all the same
// (a request the fake cluster cannot cause, or one that depends on timing).
// Wildcards, resourceNames and nonResourceURLs are refused: least privilege
// is easiest to read when spelt out.
func CheckRBAC(t testing.TB, s *Set, actions []k8stesting.Action, mayBeUnused map[Request]string) {
	t.Helper()
	type grant struct {
		source    string
		namespace string // "" for the ClusterRole
	}
	granted := map[Request]grant{}
	add := func(rules []rbacv1.PolicyRule, g grant) {
		for _, r := range rules {
			if len(r.ResourceNames) > 0 || len(r.NonResourceURLs) > 0 {
				t.Errorf("%s: rule %+v: resourceNames and nonResourceURLs are not expected", g.source, r)
			}
			for _, group := range r.APIGroups {
				for _, res := range r.Resources {
					for _, verb := range r.Verbs {
						if group == "*" || res == "*" || verb == "*" {
							t.Errorf("%s: wildcard in rule %+v", g.source, r)
						}
						granted[Request{group, res, verb}] = g
					}
				}
			}
		}
	}
	for _, cr := range s.ClusterRoles {
		add(cr.Rules, grant{source: "ClusterRole " + cr.Name})
	}
	for _, r := range s.Roles {
		add(r.Rules, grant{source: "Role " + r.Namespace + "/" + r.Name, namespace: r.Namespace})
	}

	used := map[Request]bool{}
	for _, a := range actions {
		req := RequestOf(a)
		g, ok := granted[req]
		switch {
		case !ok:
			t.Errorf("%v in namespace %q is not allowed by the manifests", req, a.GetNamespace())
		case g.namespace != "" && a.GetNamespace() != g.namespace:
			t.Errorf("%v in namespace %q: %s allows it only in %s", req, a.GetNamespace(), g.source, g.namespace)
		}
		used[req] = true
	}
	var unused []string
	for req, g := range granted {
		if _, excused := mayBeUnused[req]; !used[req] && !excused {
			unused = append(unused, fmt.Sprintf("%v (%s)", req, g.source))
		}
	}
	if len(unused) > 0 {
		t.Errorf("granted but never used (remove, or say why in mayBeUnused):\n  %s", strings.Join(unused, "\n  "))
	}
	for req := range mayBeUnused {
		if _, ok := granted[req]; !ok {
			t.Errorf("mayBeUnused lists %v, which the manifests do not grant", req)
		}
	}
}
