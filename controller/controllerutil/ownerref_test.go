package controllerutil_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller/controllerutil"
)

var deploymentKind = appsv1.SchemeGroupVersion.WithKind("Deployment")

func owner(ns, name, uid string) *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: typesUID(uid)}}
}

func TestSetControllerReference(t *testing.T) {
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web-1",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "other", UID: "9"}}}}
	if err := controllerutil.SetControllerReference(owner("ns", "web", "1"), deploymentKind, rs); err != nil {
		t.Fatal(err)
	}
	// Again, after the owner was recreated: the reference is replaced, not added.
	if err := controllerutil.SetControllerReference(owner("ns", "web", "2"), deploymentKind, rs); err != nil {
		t.Fatal(err)
	}
	want := []metav1.OwnerReference{
		{APIVersion: "v1", Kind: "ConfigMap", Name: "other", UID: "9"},
		{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "2", Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)},
	}
	if diff := cmp.Diff(want, rs.OwnerReferences); diff != "" {
		t.Errorf("owner references (-want +got):\n%s", diff)
	}

	err := controllerutil.SetControllerReference(owner("ns", "db", "3"), deploymentKind, rs)
	var owned *controllerutil.AlreadyOwnedError
	if !errors.As(err, &owned) || owned.Owner.Name != "web" {
		t.Errorf("SetControllerReference with another controller: %v, want an AlreadyOwnedError naming web", err)
	}
	if diff := cmp.Diff(want, rs.OwnerReferences); diff != "" {
		t.Errorf("a refused SetControllerReference changed the references (-want +got):\n%s", diff)
	}
}

func TestOwnerScopes(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1", UID: "n"}}
	nodeKind := corev1.SchemeGroupVersion.WithKind("Node")
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv"}}
	for _, tc := range []struct {
		name    string
		owner   metav1.Object
		object  metav1.Object
		wantErr bool
	}{
		{"same namespace", owner("ns", "web", "1"), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}, false},
		{"cluster-scoped owner of a namespaced object", node, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "mirror"}}, false},
		{"cluster-scoped owner of a cluster-scoped object", node, pv.DeepCopy(), false},
		{"cross-namespace", owner("ns", "web", "1"), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "p"}}, true},
		{"namespaced owner of a cluster-scoped object", owner("ns", "web", "1"), pv.DeepCopy(), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kind := deploymentKind
			if tc.owner == node {
				kind = nodeKind
			}
			for _, set := range []func(metav1.Object, schemaGVK, metav1.Object) error{controllerutil.SetControllerReference, controllerutil.SetOwnerReference} {
				obj := copyMeta(tc.object)
				err := set(tc.owner, kind, obj)
				if (err != nil) != tc.wantErr {
					t.Errorf("err = %v, want error %v", err, tc.wantErr)
				}
				if got := len(obj.GetOwnerReferences()); got != map[bool]int{true: 0, false: 1}[tc.wantErr] {
					t.Errorf("%d owner references after err=%v", got, err)
				}
			}
		})
	}
}

func TestSetOwnerReference(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}
	for _, o := range []*appsv1.Deployment{owner("ns", "a", "1"), owner("ns", "b", "2"), owner("ns", "a", "3")} {
		if err := controllerutil.SetOwnerReference(o, deploymentKind, pod); err != nil {
			t.Fatal(err)
		}
	}
	want := []metav1.OwnerReference{
		{APIVersion: "apps/v1", Kind: "Deployment", Name: "a", UID: "3"},
		{APIVersion: "apps/v1", Kind: "Deployment", Name: "b", UID: "2"},
	}
	if diff := cmp.Diff(want, pod.OwnerReferences); diff != "" {
		t.Errorf("owner references (-want +got):\n%s", diff)
	}
	if metav1.GetControllerOf(pod) != nil {
		t.Error("SetOwnerReference made a controller")
	}
}

func TestControllerReferenceApplyConfiguration(t *testing.T) {
	ref := controllerutil.ControllerReferenceApplyConfiguration(owner("ns", "web", "1"), deploymentKind)
	if *ref.APIVersion != "apps/v1" || *ref.Kind != "Deployment" || *ref.Name != "web" || *ref.UID != "1" || !*ref.Controller || !*ref.BlockOwnerDeletion {
		t.Errorf("apply configuration %+v, want SetControllerReference's reference", ref)
	}
}
