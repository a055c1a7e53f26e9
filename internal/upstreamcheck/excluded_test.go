package upstreamcheck

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	ours "github.com/ctrlkit/ctrlkit/deployment"
)

// unadoptableNewReplicaSet reports whether d is in the one input class where
// ctrlkit decides otherwise on purpose (see "Where it differs from upstream"
// in package deployment): its selector does not select the labels of the new
// ReplicaSet a pass would create (the template's labels plus
// pod-template-hash), which needs a selector naming pod-template-hash.
// Upstream creates and releases ReplicaSets there without end; ours creates
// none. The differential tests compare no pass from such a world; the
// random worlds never draw one (random_world_test.go puts the hash label
// only in template labels), and TestRandomWorldsMatchUpstream fails if one
// ever appears, so that the exclusion stays exactly this class.
func unadoptableNewReplicaSet(d *appsv1.Deployment) bool {
	if d.Spec.Selector == nil {
		return false
	}
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return false
	}
	rsLabels := labels.Set{}
	for k, v := range d.Spec.Template.Labels {
		rsLabels[k] = v
	}
	rsLabels[appsv1.DefaultDeploymentUniqueLabelKey] = ours.PodTemplateHash(&d.Spec.Template, d.Status.CollisionCount)
	return !sel.Matches(rsLabels)
}
