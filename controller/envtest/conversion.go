package envtest

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"
)

// conversionCRD is what InstallWebhooks needs of a CRD whose conversion
// strategy is Webhook: its name, and where a probe can make the API
// server convert, a served version that is not the storage version.
type conversionCRD struct {
	name       string
	probe      schema.GroupVersionResource
	kind       string
	storage    string // the storage version
	namespaced bool
}

// pointConversionWebhooks points the conversion webhook of every CRD that
// Start installed with strategy Webhook at url, with bundle unless it is
// nil (certs.SelfManaged writes it), and returns those CRDs.
func (env *Environment) pointConversionWebhooks(ctx context.Context, client dynamic.Interface, url string, bundle []byte) ([]conversionCRD, error) {
	api := client.Resource(crdResource)
	var crds []conversionCRD
	for _, name := range env.crdNames {
		var found *conversionCRD
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			crd, err := api.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if found = conversionTarget(crd); found == nil {
				return nil
			}
			if err := unstructured.SetNestedField(crd.Object, url, "spec", "conversion", "webhook", "clientConfig", "url"); err != nil {
				return err
			}
			unstructured.RemoveNestedField(crd.Object, "spec", "conversion", "webhook", "clientConfig", "service")
			if bundle != nil {
				// The CRD's caBundle is base64 of the PEM ([]byte in Go).
				if err := unstructured.SetNestedField(crd.Object, base64.StdEncoding.EncodeToString(bundle), "spec", "conversion", "webhook", "clientConfig", "caBundle"); err != nil {
					return err
				}
			}
			_, err = api.Update(ctx, crd, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("point the conversion webhook of CRD %s: %w", name, err)
		}
		if found != nil {
			crds = append(crds, *found)
		}
	}
	return crds, nil
}

// conversionTarget returns what a conversion probe of crd needs, or nil
// unless crd converts by webhook between versions it serves.
func conversionTarget(crd *unstructured.Unstructured) *conversionCRD {
	if strategy, _, _ := unstructured.NestedString(crd.Object, "spec", "conversion", "strategy"); strategy != "Webhook" {
		return nil
	}
	group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
	plural, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
	kind, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
	scope, _, _ := unstructured.NestedString(crd.Object, "spec", "scope")
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	var target *conversionCRD
	storage := ""
	for _, v := range versions {
		m, _ := v.(map[string]any)
		name, _ := m["name"].(string)
		served, _ := m["served"].(bool)
		if m["storage"] == true {
			storage = name
		} else if served && target == nil {
			target = &conversionCRD{
				name:       crd.GetName(),
				probe:      schema.GroupVersionResource{Group: group, Version: name, Resource: plural},
				kind:       kind,
				namespaced: scope == "Namespaced",
			}
		}
	}
	if target != nil {
		target.storage = storage
	}
	return target
}

// probeConversion makes the API server convert an object of crd through
// the webhook, and back: a dry-run create at a version that is not the
// storage version, which the API server encodes at the storage version
// (calling the webhook) and answers at the version asked for (calling it
// again). It succeeds only if both conversions did. The object is sample
// when sample is of crd's group and kind and not at its storage version
// (a valid object passes the schema a CRD with required fields has), else
// an empty one at crd.probe's version.
func probeConversion(ctx context.Context, client dynamic.Interface, crd conversionCRD, sample *unstructured.Unstructured) error {
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion(crd.probe.GroupVersion().String())
	obj.SetKind(crd.kind)
	if sample != nil && sample.GroupVersionKind().Group == crd.probe.Group && sample.GetKind() == crd.kind && sample.GroupVersionKind().Version != crd.storage {
		gvk := sample.GroupVersionKind()
		obj = sample.DeepCopy()
		obj.SetName("")
		crd.probe.Version = gvk.Version
	}
	obj.SetGenerateName("envtest-conversion-probe-")
	var api dynamic.ResourceInterface = client.Resource(crd.probe)
	if crd.namespaced {
		if obj.GetNamespace() == "" {
			obj.SetNamespace(metav1.NamespaceDefault)
		}
		api = client.Resource(crd.probe).Namespace(obj.GetNamespace())
	}
	_, err := api.Create(ctx, obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) && !strings.Contains(err.Error(), "conversion webhook") {
		// Validation runs before the conversion to the storage version:
		// an object the schema rejects never reaches the webhook.
		return permanentError{fmt.Errorf("CRD %s: a conversion probe (a %s at %s) is rejected before it is converted (give a valid one as DryRunProbe): %w",
			crd.name, crd.kind, crd.probe.Version, err)}
	}
	if err != nil {
		return fmt.Errorf("CRD %s: the conversion probe at %s failed: %w", crd.name, crd.probe.Version, err)
	}
	return nil
}

// errNoConversionCRD says that ConversionPath was set but no CRD that
// Start installed converts by webhook.
var errNoConversionCRD = errors.New("ConversionPath is set, but no CRD in Options.CRDPaths has a conversion strategy Webhook and a served version besides the storage version")

// installConversionWebhooks points the conversion webhooks of the CRDs
// Start installed at url and waits until each converts.
func (env *Environment) installConversionWebhooks(ctx context.Context, url string, bundle []byte, sample *unstructured.Unstructured) error {
	client, err := dynamic.NewForConfig(env.restConfig)
	if err != nil {
		return err
	}
	crds, err := env.pointConversionWebhooks(ctx, client, url, bundle)
	if err != nil {
		return err
	}
	if len(crds) == 0 {
		return errNoConversionCRD
	}
	for _, crd := range crds {
		if err := env.waitFor(ctx, "CRD "+crd.name+" to convert through "+url, func(ctx context.Context) error {
			return probeConversion(ctx, client, crd, sample)
		}); err != nil {
			return err
		}
	}
	fmt.Fprintf(env.log, "envtest: %d CRDs convert through %s\n", len(crds), url)
	return nil
}
