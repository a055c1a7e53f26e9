package certs

import (
	"context"
	"encoding/base64"
	"fmt"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"
)

// The CRD's conversion webhook client configuration, as apiextensions.k8s.io/v1
// names it. Its fields are spelled as admissionregistration's
// WebhookClientConfig, so it decodes into one.
var crdClientConfig = []string{"spec", "conversion", "webhook", "clientConfig"}

// conversionClientConfig is the CRD's conversion webhook client
// configuration, or nil if the CRD converts without a webhook.
func conversionClientConfig(crd *unstructured.Unstructured) (*admissionv1.WebhookClientConfig, error) {
	if strategy, _, _ := unstructured.NestedString(crd.Object, "spec", "conversion", "strategy"); strategy != "Webhook" {
		return nil, nil
	}
	m, _, err := unstructured.NestedMap(crd.Object, crdClientConfig...)
	if err != nil {
		return nil, err
	}
	cc := &admissionv1.WebhookClientConfig{}
	return cc, runtime.DefaultUnstructuredConverter.FromUnstructured(m, cc)
}

// injectCRD writes bundle as the caBundle of the CRD's conversion webhook,
// if it converts with one.
func (k *keeper) injectCRD(ctx context.Context, name string, bundle []byte) error {
	crds := k.s.opts.CRDClient.Resource(crdResource)
	want := base64.StdEncoding.EncodeToString(bundle)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		crd, err := crds.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cc, err := conversionClientConfig(crd); err != nil || cc == nil {
			return err
		}
		if got, _, _ := unstructured.NestedString(crd.Object, append(crdClientConfig, "caBundle")...); got == want {
			return nil
		}
		if err := unstructured.SetNestedField(crd.Object, want, append(crdClientConfig, "caBundle")...); err != nil {
			return err
		}
		if _, err = crds.Update(ctx, crd, metav1.UpdateOptions{}); err == nil {
			klog.FromContext(ctx).Info("Wrote the caBundle", "kind", "CustomResourceDefinition", "name", name)
		}
		return err
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("certs: writing the caBundle of CustomResourceDefinition %s: %w", name, err)
	}
	return nil
}
