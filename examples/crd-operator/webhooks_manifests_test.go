package main

import (
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	klabels "k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/ctrlkit/ctrlkit/examples/internal/manifesttest"
)

// TestWebhookManifests checks that the webhook configurations generated
// from the markers in webhooks.go fit the Deployment, the Service and the
// code, and keep the safe defaults the markers' comment explains: the
// operator's namespace left out, a failure policy stated on every
// webhook, no DELETE blocked by a webhook that is down, and no update of
// a WebApp being deleted sent to a webhook that fails closed.
func TestWebhookManifests(t *testing.T) {
	m := manifesttest.Load(t, "manifests/[dns]*.yaml", "manifests/webhook/manifests.yaml") // deployment, namespace, service, webhooks
	if len(m.Deployments) != 1 || len(m.Services) != 1 || len(m.MutatingWebhookConfigurations) != 1 || len(m.ValidatingWebhookConfigurations) != 1 {
		t.Fatalf("want one Deployment, Service, MutatingWebhookConfiguration and ValidatingWebhookConfiguration, got %d, %d, %d and %d",
			len(m.Deployments), len(m.Services), len(m.MutatingWebhookConfigurations), len(m.ValidatingWebhookConfigurations))
	}
	d, svc := m.Deployments[0], m.Services[0]
	o, err := parseOptions(d.Spec.Template.Spec.Containers[0].Args, io.Discard)
	if err != nil {
		t.Fatalf("the Deployment's args do not parse: %v", err)
	}

	// The Service is the one the flags name, selects the operator's pods
	// and reaches the port the webhook server binds.
	if svc.Namespace != o.Webhooks.Namespace || svc.Name != o.Webhooks.Service {
		t.Errorf("Service %s/%s, the flags name %s/%s", svc.Namespace, svc.Name, o.Webhooks.Namespace, o.Webhooks.Service)
	}
	if !klabels.SelectorFromSet(svc.Spec.Selector).Matches(klabels.Set(d.Spec.Template.Labels)) {
		t.Errorf("the Service's selector %v does not select the Deployment's pods %v", svc.Spec.Selector, d.Spec.Template.Labels)
	}
	_, bindPort, err := net.SplitHostPort(o.Webhooks.BindAddress)
	if err != nil {
		t.Fatalf("--webhook-bind-address: %v", err)
	}
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort.Type != intstr.String {
		t.Fatalf("want one Service port with a named targetPort, got %+v", svc.Spec.Ports)
	}
	target := svc.Spec.Ports[0].TargetPort.StrVal
	i := slices.IndexFunc(d.Spec.Template.Spec.Containers[0].Ports, func(p corev1.ContainerPort) bool { return p.Name == target })
	if i < 0 || strconv.Itoa(int(d.Spec.Template.Spec.Containers[0].Ports[i].ContainerPort)) != bindPort {
		t.Errorf("the Service's targetPort %q is not the container port of --webhook-bind-address %s", target, o.Webhooks.BindAddress)
	}

	mutating, validating := m.MutatingWebhookConfigurations[0], m.ValidatingWebhookConfigurations[0]
	if mutating.Name != webhookConfigurations || validating.Name != webhookConfigurations {
		t.Errorf("configurations %q and %q, the elected replica writes the caBundle of %q", mutating.Name, validating.Name, webhookConfigurations)
	}
	var webhooks []webhookUnderTest
	for _, w := range mutating.Webhooks {
		webhooks = append(webhooks, webhookUnderTest{w.Name, defaultPath, w.ClientConfig, w.Rules, w.FailurePolicy, w.NamespaceSelector, w.MatchConditions})
	}
	for _, w := range validating.Webhooks {
		webhooks = append(webhooks, webhookUnderTest{w.Name, validatePath, w.ClientConfig, w.Rules, w.FailurePolicy, w.NamespaceSelector, w.MatchConditions})
	}
	for _, w := range webhooks {
		w.check(t, o.Webhooks, d.Namespace)
	}
}

// webhookUnderTest holds the fields that mutating and validating webhooks
// share.
type webhookUnderTest struct {
	name, path        string
	clientConfig      admissionv1.WebhookClientConfig
	rules             []admissionv1.RuleWithOperations
	failurePolicy     *admissionv1.FailurePolicyType
	namespaceSelector *metav1.LabelSelector
	matchConditions   []admissionv1.MatchCondition
}

func (w webhookUnderTest) check(t *testing.T, o webhookOptions, operatorNamespace string) {
	t.Helper()
	if s := w.clientConfig.Service; s == nil || s.Namespace != o.Namespace || s.Name != o.Service || s.Path == nil || *s.Path != w.path {
		t.Errorf("%s calls %+v, want Service %s/%s path %s", w.name, s, o.Namespace, o.Service, w.path)
	}
	if w.failurePolicy == nil {
		t.Errorf("%s states no failurePolicy", w.name)
		return
	}
	sel, err := metav1.LabelSelectorAsSelector(w.namespaceSelector)
	if err != nil || w.namespaceSelector == nil {
		t.Errorf("%s namespaceSelector %v: %v", w.name, w.namespaceSelector, err)
	} else {
		for _, ns := range slices.Compact([]string{operatorNamespace, o.Namespace}) {
			if sel.Matches(klabels.Set{"kubernetes.io/metadata.name": ns}) {
				t.Errorf("%s's namespaceSelector %s includes the operator's namespace %s", w.name, sel, ns)
			}
		}
		if !sel.Matches(klabels.Set{"kubernetes.io/metadata.name": "shop"}) {
			t.Errorf("%s's namespaceSelector %s leaves out other namespaces", w.name, sel)
		}
	}
	var ops []admissionv1.OperationType
	for _, r := range w.rules {
		ops = append(ops, r.Operations...)
	}
	if *w.failurePolicy == admissionv1.Ignore {
		return
	}
	if slices.Contains(ops, admissionv1.Delete) || slices.Contains(ops, admissionv1.OperationAll) {
		t.Errorf("%s has failurePolicy %s and sees DELETE: a webhook that is down would block deletions", w.name, *w.failurePolicy)
	}
	skipsDeleting := slices.ContainsFunc(w.matchConditions, func(c admissionv1.MatchCondition) bool {
		return strings.Contains(c.Expression, "!has(object.metadata.deletionTimestamp)")
	})
	if slices.Contains(ops, admissionv1.Update) && !skipsDeleting {
		t.Errorf("%s has failurePolicy %s and sees the update that removes the finalizer of a WebApp being deleted", w.name, *w.failurePolicy)
	}
}
