package storagemigration

import (
	"context"
	"errors"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/retry"
)

// crdResource is apiextensions.k8s.io/v1's CustomResourceDefinitions,
// handled as unstructured objects so that the module does not need
// k8s.io/apiextensions-apiserver.
var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// crdState is what a migration reads of a CRD.
type crdState struct {
	obj            *unstructured.Unstructured
	name           string
	generation     int64
	group, plural  string
	kind           string
	namespaced     bool
	storageVersion string
	storedVersions []string
}

func parseCRD(obj *unstructured.Unstructured) (*crdState, error) {
	s := &crdState{obj: obj, name: obj.GetName(), generation: obj.GetGeneration()}
	s.group, _, _ = unstructured.NestedString(obj.Object, "spec", "group")
	s.plural, _, _ = unstructured.NestedString(obj.Object, "spec", "names", "plural")
	s.kind, _, _ = unstructured.NestedString(obj.Object, "spec", "names", "kind")
	scope, _, _ := unstructured.NestedString(obj.Object, "spec", "scope")
	s.namespaced = scope == "Namespaced"
	versions, _, _ := unstructured.NestedSlice(obj.Object, "spec", "versions")
	for _, v := range versions {
		m, _ := v.(map[string]any)
		if storage, _ := m["storage"].(bool); storage {
			s.storageVersion, _ = m["name"].(string)
		}
	}
	if s.storageVersion == "" || s.plural == "" {
		return nil, errors.New("the CRD has no storage version or no plural name")
	}
	s.storedVersions, _, _ = unstructured.NestedStringSlice(obj.Object, "status", "storedVersions")
	return s, nil
}

// resource is the custom resource at its storage version.
func (s *crdState) resource() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: s.group, Version: s.storageVersion, Resource: s.plural}
}

// migrated says that storedVersions holds the storage version alone.
func (s *crdState) migrated() bool {
	return slices.Equal(s.storedVersions, []string{s.storageVersion})
}

func (s *crdState) setStoredVersions(versions []string) {
	_ = unstructured.SetNestedStringSlice(s.obj.Object, versions, "status", "storedVersions")
	s.storedVersions = versions
}

// setCondition sets the CRD condition of type t (observedGeneration is
// the CRD's generation, as Kubernetes v1.37's migrator sets it) and
// reports whether it changed.
func (s *crdState) setCondition(t, status, reason, message string) bool {
	conditions, _, _ := unstructured.NestedSlice(s.obj.Object, "status", "conditions")
	for i, c := range conditions {
		m, _ := c.(map[string]any)
		if m["type"] != t {
			continue
		}
		if m["status"] == status && m["reason"] == reason && m["message"] == message {
			return false
		}
		if m["status"] != status {
			m["lastTransitionTime"] = metav1.Now().UTC().Format("2006-01-02T15:04:05Z")
		}
		m["status"], m["reason"], m["message"], m["observedGeneration"] = status, reason, message, s.generation
		conditions[i] = m
		_ = unstructured.SetNestedSlice(s.obj.Object, conditions, "status", "conditions")
		return true
	}
	conditions = append(conditions, map[string]any{"type": t, "status": status, "reason": reason, "message": message,
		"lastTransitionTime": metav1.Now().UTC().Format("2006-01-02T15:04:05Z"), "observedGeneration": s.generation})
	_ = unstructured.SetNestedSlice(s.obj.Object, conditions, "status", "conditions")
	return true
}

func (m *migration) getCRD(ctx context.Context, name string) (*crdState, error) {
	obj, err := m.client.Resource(crdResource).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return parseCRD(obj)
}

// updateCRDStatus reads the CRD, lets change modify it, and writes its
// status if change says so, retrying on conflicts. It reports whether it
// wrote.
func (m *migration) updateCRDStatus(ctx context.Context, name string, change func(*crdState) (bool, error)) (bool, error) {
	var wrote bool
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		now, err := m.getCRD(ctx, name)
		if err != nil {
			return err
		}
		write, err := change(now)
		if err != nil || !write {
			wrote = false
			return err
		}
		_, err = m.client.Resource(crdResource).UpdateStatus(ctx, now.obj, metav1.UpdateOptions{})
		wrote = err == nil
		return err
	})
	if err != nil {
		return false, fmt.Errorf("update the status of CRD %s: %w", name, err)
	}
	return wrote, nil
}
