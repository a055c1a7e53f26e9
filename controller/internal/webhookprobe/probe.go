// Package webhookprobe proves that the API server's calls reach a
// webhook's handler: a dry-run create of an object marked with a nonce
// goes through the API server, every handler of package admission that
// it reaches answers with a warning naming the nonce and its path, and
// the API server passes the warnings back to the client. The warnings
// are the evidence: a configuration the API server has not loaded yet, a
// caBundle it does not trust or a server it cannot reach give none, even
// under failurePolicy Ignore.
//
// envtest's InstallWebhooks waits with it, and certs.SelfManaged's
// readiness check with SelfManagedOptions.DryRunProbe.
package webhookprobe

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
)

// Annotation marks a probe object; its value is the probe's nonce.
const Annotation = "webhook-probe.ctrlkit.dev/nonce"

// warningPrefix starts the warning a handler answers a probe with.
const warningPrefix = "ctrlkit webhook probe "

// Nonce is the nonce of a probe request: a dry-run request whose object
// carries Annotation. ok is false for any other request, which the
// handler answers as usual.
func Nonce(req *admissionv1.AdmissionRequest) (nonce string, ok bool) {
	if req.DryRun == nil || !*req.DryRun || len(req.Object.Raw) == 0 {
		return "", false
	}
	var obj struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	if json.Unmarshal(req.Object.Raw, &obj) != nil {
		return "", false
	}
	nonce = obj.Metadata.Annotations[Annotation]
	return nonce, nonce != ""
}

// Warning is a handler's answer to the probe nonce at path.
func Warning(nonce, path string) string {
	return warningPrefix + nonce + " reached " + path
}

// Reached lists the paths whose handlers answered the probe nonce, from
// the warnings the API server passed on.
func Reached(nonce string, warnings []string) []string {
	prefix := Warning(nonce, "")
	var paths []string
	for _, w := range warnings {
		if p, ok := strings.CutPrefix(w, prefix); ok && !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	return paths
}

// Send creates obj with dryRun=All and a new nonce through kube, and
// returns the paths of the handlers it reached. err is the API server's
// answer if it failed: a call to a webhook that failed, a denial, an
// invalid object. A probe can reach some handlers and still fail.
func Send(ctx context.Context, kube kubernetes.Interface, obj *unstructured.Unstructured) (paths []string, err error) {
	path, err := createPath(kube, obj)
	if err != nil {
		return nil, err
	}
	obj = obj.DeepCopy()
	nonce := rand.Text()
	annotations := obj.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[Annotation] = nonce
	obj.SetAnnotations(annotations)
	if obj.GetName() == "" && obj.GetGenerateName() == "" {
		obj.SetGenerateName("webhook-probe-")
	}
	body, err := json.Marshal(obj.Object)
	if err != nil {
		return nil, err
	}
	result := kube.Discovery().RESTClient().Post().AbsPath(path).Param("dryRun", "All").
		SetHeader("Content-Type", "application/json").Body(body).Do(ctx)
	var warnings []string
	for _, w := range result.Warnings() {
		warnings = append(warnings, w.Text)
	}
	return Reached(nonce, warnings), result.Error()
}

// createPath is the path a create of obj is posted to, found through
// discovery.
func createPath(kube kubernetes.Interface, obj *unstructured.Unstructured) (string, error) {
	gv, kind := obj.GetAPIVersion(), obj.GetKind()
	resources, err := kube.Discovery().ServerResourcesForGroupVersion(gv)
	if err != nil {
		return "", fmt.Errorf("the probe's apiVersion %s: %w", gv, err)
	}
	for _, r := range resources.APIResources {
		if r.Kind != kind || strings.Contains(r.Name, "/") {
			continue
		}
		path := "/apis/" + gv
		if !strings.Contains(gv, "/") {
			path = "/api/" + gv
		}
		if r.Namespaced {
			if obj.GetNamespace() == "" {
				return "", fmt.Errorf("the probe %s has no namespace", kind)
			}
			path += "/namespaces/" + url.PathEscape(obj.GetNamespace())
		}
		return path + "/" + r.Name, nil
	}
	return "", fmt.Errorf("the API server serves no kind %s in %s", kind, gv)
}

// Path is the path the API server calls for cc: the service's path or
// the URL's, "/" when empty.
func Path(cc admissionregistrationv1.WebhookClientConfig) string {
	var p string
	switch {
	case cc.Service != nil && cc.Service.Path != nil:
		p = *cc.Service.Path
	case cc.URL != nil:
		if u, err := url.Parse(*cc.URL); err == nil {
			p = u.Path
		}
	}
	if p == "" {
		return "/"
	}
	return p
}

// Configuration is a webhook configuration the probe must reach: its
// kind and name, and the paths of its webhooks.
type Configuration struct {
	Kind, Name string
	Paths      []string
}

// Unreached describes each configuration with webhooks none of whose
// paths the probe reached, "" if there is none.
func Unreached(configs []Configuration, reached []string) string {
	var missing []string
	for _, c := range configs {
		if len(c.Paths) > 0 && !slices.ContainsFunc(c.Paths, func(p string) bool { return slices.Contains(reached, p) }) {
			missing = append(missing, fmt.Sprintf("%s %s (%s)", c.Kind, c.Name, strings.Join(c.Paths, ", ")))
		}
	}
	return strings.Join(missing, "; ")
}

// Validating and Mutating are the configurations to reach, as the probe
// sees them.
func Validating(c *admissionregistrationv1.ValidatingWebhookConfiguration) Configuration {
	cfg := Configuration{Kind: "ValidatingWebhookConfiguration", Name: c.Name}
	for _, w := range c.Webhooks {
		cfg.add(Path(w.ClientConfig))
	}
	return cfg
}

// Mutating: see Validating.
func Mutating(c *admissionregistrationv1.MutatingWebhookConfiguration) Configuration {
	cfg := Configuration{Kind: "MutatingWebhookConfiguration", Name: c.Name}
	for _, w := range c.Webhooks {
		cfg.add(Path(w.ClientConfig))
	}
	return cfg
}

func (c *Configuration) add(path string) {
	if !slices.Contains(c.Paths, path) {
		c.Paths = append(c.Paths, path)
	}
}
