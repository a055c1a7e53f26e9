package envtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
)

// crdResource is the API of CustomResourceDefinitions. They are handled as
// unstructured objects through the dynamic client, so that the root module
// does not need k8s.io/apiextensions-apiserver (and its dependencies) for a
// create and a condition check.
var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// readCRDs reads every CustomResourceDefinition in paths: files, or
// directories whose .yaml, .yml and .json files are read in name order.
func readCRDs(paths []string) ([]*unstructured.Unstructured, error) {
	files, err := manifestFiles(paths)
	if err != nil {
		return nil, fmt.Errorf("CRD path: %w", err)
	}
	var crds []*unstructured.Unstructured
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		objs, err := decodeCRDs(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		crds = append(crds, objs...)
	}
	return crds, nil
}

// manifestFiles lists the files in paths: files, and the .yaml, .yml and
// .json files of directories (not recursive), in name order.
func manifestFiles(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			files = append(files, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if ext := filepath.Ext(e.Name()); !e.IsDir() && (ext == ".yaml" || ext == ".yml" || ext == ".json") {
				files = append(files, filepath.Join(p, e.Name()))
			}
		}
	}
	return files, nil
}

// decodeCRDs decodes a stream of YAML or JSON documents, each a
// CustomResourceDefinition of apiextensions.k8s.io/v1; empty documents are
// skipped.
func decodeCRDs(data []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var crds []*unstructured.Unstructured
	for {
		var obj map[string]any
		if err := dec.Decode(&obj); errors.Is(err, io.EOF) {
			return crds, nil
		} else if err != nil {
			return nil, err
		}
		if obj == nil {
			continue
		}
		u := &unstructured.Unstructured{Object: obj}
		if gvk := u.GroupVersionKind(); gvk != crdResource.GroupVersion().WithKind("CustomResourceDefinition") {
			return nil, fmt.Errorf("%s %q is not an apiextensions.k8s.io/v1 CustomResourceDefinition", gvk, u.GetName())
		}
		if u.GetName() == "" {
			return nil, errors.New("a CustomResourceDefinition without a name")
		}
		crds = append(crds, u)
	}
}

// installCRDs creates the CRDs (replacing any of the same name) and waits
// until the API server serves each of them.
func installCRDs(ctx context.Context, env *Environment, crds []*unstructured.Unstructured) error {
	if len(crds) == 0 {
		return nil
	}
	client, err := dynamic.NewForConfig(env.restConfig)
	if err != nil {
		return err
	}
	api := client.Resource(crdResource)
	for _, crd := range crds {
		_, err := api.Create(ctx, crd, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			err = replaceCRD(ctx, api, crd)
		}
		if err != nil {
			return fmt.Errorf("install CRD %s: %w", crd.GetName(), err)
		}
		env.crdNames = append(env.crdNames, crd.GetName())
	}
	for _, crd := range crds {
		name := crd.GetName()
		if err := env.waitFor(ctx, "CRD "+name+" to be established", func(ctx context.Context) error {
			got, err := api.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			return crdEstablished(got)
		}); err != nil {
			return err
		}
	}
	fmt.Fprintf(env.log, "envtest: %d CRDs established\n", len(crds))
	return nil
}

// replaceCRD updates an existing CRD to crd's content.
func replaceCRD(ctx context.Context, api dynamic.ResourceInterface, crd *unstructured.Unstructured) error {
	existing, err := api.Get(ctx, crd.GetName(), metav1.GetOptions{})
	if err != nil {
		return err
	}
	crd = crd.DeepCopy()
	crd.SetResourceVersion(existing.GetResourceVersion())
	_, err = api.Update(ctx, crd, metav1.UpdateOptions{})
	return err
}

// crdEstablished returns nil when the CRD's names are accepted and it is
// Established (served), else why not.
func crdEstablished(crd *unstructured.Unstructured) error {
	conditions, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	status := map[string]string{}
	for _, c := range conditions {
		m, _ := c.(map[string]any)
		t, _ := m["type"].(string)
		s, _ := m["status"].(string)
		msg, _ := m["message"].(string)
		status[t] = s
		if t == "NamesAccepted" && s == "False" {
			// Another CRD holds the names: waiting cannot help.
			return permanentError{fmt.Errorf("CRD %s: names not accepted: %s", crd.GetName(), msg)}
		}
	}
	var missing []string
	for _, want := range []string{"NamesAccepted", "Established"} {
		if status[want] != "True" {
			missing = append(missing, want)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return fmt.Errorf("CRD %s is not yet %s", crd.GetName(), strings.Join(missing, " and "))
	}
	return nil
}
