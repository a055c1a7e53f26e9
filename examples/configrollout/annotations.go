package configrollout

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The annotations the controller reads and writes.
const (
	// EnabledAnnotation on a Deployment, set to "true", opts it in. Nothing
	// else is ever touched.
	EnabledAnnotation = "configrollout.ctrlkit.dev/enabled"
	// HashAnnotation on the pod template holds the hash of the configuration
	// the pods were rolled out for. The controller changes it when the
	// configuration changes, and the change makes the Deployment controller
	// roll the pods.
	HashAnnotation = "configrollout.ctrlkit.dev/config-hash"
	// ObservedHashAnnotation on the Deployment itself is the controller's
	// report: the hash of the configuration it last saw. Setting it does not
	// restart pods, which is how a newly opted-in Deployment is adopted
	// without a rollout.
	ObservedHashAnnotation = "configrollout.ctrlkit.dev/observed-config-hash"
)

// Enabled reports whether obj opted in with EnabledAnnotation: "true".
func Enabled(obj metav1.Object) bool {
	return obj.GetAnnotations()[EnabledAnnotation] == "true"
}

// change is what a Deployment needs for the configuration hash it should run.
type change struct {
	// observe sets ObservedHashAnnotation: no restart.
	observe bool
	// roll sets HashAnnotation on the pod template: a rollout.
	roll bool
	// from is the hash the pods run with now, "" when there was none.
	from string
}

func (c change) none() bool { return !c.observe && !c.roll }

// changeFor compares the Deployment's annotations with the wanted hash.
//
// The pods' current configuration is the template's hash or, before the
// first rollout, the observed one. A Deployment seen for the first time has
// neither: it is adopted by recording the hash without a rollout, because
// opting in should not restart a production workload. Later, a different
// hash rolls the pods.
func changeFor(d *appsv1.Deployment, want string) change {
	observed := d.Annotations[ObservedHashAnnotation]
	current := d.Spec.Template.Annotations[HashAnnotation]
	if current == "" {
		current = observed
	}
	return change{
		observe: observed != want,
		roll:    current != "" && current != want,
		from:    current,
	}
}

// apply writes c onto d, which must be a copy the caller owns.
func (c change) apply(d *appsv1.Deployment, want string) {
	if c.observe {
		if d.Annotations == nil {
			d.Annotations = map[string]string{}
		}
		d.Annotations[ObservedHashAnnotation] = want
	}
	if c.roll {
		if d.Spec.Template.Annotations == nil {
			d.Spec.Template.Annotations = map[string]string{}
		}
		d.Spec.Template.Annotations[HashAnnotation] = want
	}
}
