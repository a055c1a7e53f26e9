//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// newNamespace creates a namespace for one test and deletes it afterwards.
func newNamespace(t *testing.T, client kubernetes.Interface) string {
	t.Helper()
	ns, err := client.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := client.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("delete namespace %s: %v", ns.Name, err)
		}
	})
	return ns.Name
}

// deploymentSpec describes a test Deployment.
type deploymentSpec struct {
	name           string
	replicas       int32
	image          string
	recreate       bool
	maxSurge       intstr.IntOrString
	maxUnavailable intstr.IntOrString
	stuck          bool // pods never become Ready
	deadline       int32
}

func (s deploymentSpec) build() *appsv1.Deployment {
	labels := map[string]string{"app": s.name}
	template := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": s.name}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: s.image}}},
	}
	if s.stuck {
		template.Labels[stuckLabel] = "true"
	}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: s.name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &s.replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: template,
		},
	}
	if s.deadline > 0 {
		d.Spec.ProgressDeadlineSeconds = &s.deadline
	}
	if s.recreate {
		d.Spec.Strategy.Type = appsv1.RecreateDeploymentStrategyType
	} else {
		d.Spec.Strategy.Type = appsv1.RollingUpdateDeploymentStrategyType
		d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: &s.maxSurge, MaxUnavailable: &s.maxUnavailable}
	}
	return d
}

// updateDeployment applies change to the live Deployment, retrying on
// conflicts with the controller's status writes.
func updateDeployment(t *testing.T, client kubernetes.Interface, ns, name string, change func(*appsv1.Deployment)) {
	t.Helper()
	for {
		d, err := client.AppsV1().Deployments(ns).Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get deployment %s: %v", name, err)
		}
		change(d)
		_, err = client.AppsV1().Deployments(ns).Update(t.Context(), d, metav1.UpdateOptions{})
		if err == nil {
			return
		}
		if !apierrors.IsConflict(err) {
			t.Fatalf("update deployment %s: %v", name, err)
		}
	}
}

// rolloutComplete reports whether every replica runs the current template
// and is available, as `kubectl rollout status` decides it.
func rolloutComplete(client kubernetes.Interface, ns, name string) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		d, err := client.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if err := rolledOut(d); err != nil {
			return false, err
		}
		return true, nil
	}
}

// rolledOut is nil if d's status says that every replica runs the current
// template and is available, and else says what is missing.
func rolledOut(d *appsv1.Deployment) error {
	s := d.Status
	want := *d.Spec.Replicas
	if d.Generation > s.ObservedGeneration || s.UpdatedReplicas != want || s.Replicas != want || s.AvailableReplicas != want {
		return fmt.Errorf("generation %d observed %d, replicas %d updated %d available %d, want %d",
			d.Generation, s.ObservedGeneration, s.Replicas, s.UpdatedReplicas, s.AvailableReplicas, want)
	}
	return nil
}

// ownedReplicaSets returns the ReplicaSets the Deployment controls, by the
// pod-template-hash they carry.
func ownedReplicaSets(ctx context.Context, client kubernetes.Interface, ns, name string) (map[string]*appsv1.ReplicaSet, error) {
	d, err := client.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	list, err := client.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := map[string]*appsv1.ReplicaSet{}
	for i := range list.Items {
		rs := &list.Items[i]
		if ref := metav1.GetControllerOf(rs); ref != nil && ref.UID == d.UID {
			out[rs.Labels[appsv1.DefaultDeploymentUniqueLabelKey]] = rs
		}
	}
	return out, nil
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// errorFromWatch turns a watch error event into an error.
func errorFromWatch(ev watch.Event) error {
	if st, ok := ev.Object.(*metav1.Status); ok {
		return fmt.Errorf("watch error: %s", st.Message)
	}
	return fmt.Errorf("watch error: %v", ev.Object)
}

// formatCounts prints pod counts by template hash, sorted.
func formatCounts(byHash map[string]int) string {
	keys := slices.Sorted(maps.Keys(byHash))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d pods", k, byHash[k])
	}
	return strings.Join(parts, ", ")
}
