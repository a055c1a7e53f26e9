package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// rolloutStatus prints a line each time the Deployment's rollout status
// changes, in the words of `kubectl rollout status`, until the rollout is
// complete, fails its progress deadline, or timeout passes.
func rolloutStatus(ctx context.Context, client kubernetes.Interface, ns, name string, timeout time.Duration, out io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	began := time.Now()
	last := ""
	// Watch from the current state: the first event is the Deployment as it
	// is now, and each later one is a change.
	opts := metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()}
	for {
		w, err := client.AppsV1().Deployments(ns).Watch(ctx, opts)
		if err != nil {
			return fmt.Errorf("watch deployment %s: %w", name, err)
		}
		done, err := func() (bool, error) {
			defer w.Stop()
			for ev := range w.ResultChan() {
				if ev.Type == watch.Error {
					// Usually "too old resource version": start over
					// from the current state.
					opts.ResourceVersion = ""
					return false, nil
				}
				d, ok := ev.Object.(*appsv1.Deployment)
				if !ok {
					continue
				}
				opts.ResourceVersion = d.ResourceVersion
				msg, done, err := statusOf(d)
				if err != nil {
					return false, err
				}
				if msg != last {
					fmt.Fprintf(out, "  [%5.1fs] %s\n", time.Since(began).Seconds(), msg)
					last = msg
				}
				if done {
					return true, nil
				}
			}
			return false, ctx.Err()
		}()
		if done || err != nil {
			if ctx.Err() != nil && !done {
				return fmt.Errorf("deployment %q: rollout not finished after %s (last: %s)", name, timeout, last)
			}
			return err
		}
	}
}

// statusOf reads a Deployment's rollout status the way kubectl does: the
// message to show, whether the rollout is complete, and an error when its
// progress deadline has passed.
func statusOf(d *appsv1.Deployment) (msg string, done bool, err error) {
	if d.Generation > d.Status.ObservedGeneration {
		return "Waiting for deployment spec update to be observed...", false, nil
	}
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentProgressing && c.Reason == "ProgressDeadlineExceeded" {
			return "", false, fmt.Errorf("deployment %q exceeded its progress deadline", d.Name)
		}
	}
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	s := d.Status
	switch {
	case s.UpdatedReplicas < want:
		return fmt.Sprintf("Waiting for deployment %q rollout to finish: %d out of %d new replicas have been updated...", d.Name, s.UpdatedReplicas, want), false, nil
	case s.Replicas > s.UpdatedReplicas:
		return fmt.Sprintf("Waiting for deployment %q rollout to finish: %d old replicas are pending termination...", d.Name, s.Replicas-s.UpdatedReplicas), false, nil
	case s.AvailableReplicas < s.UpdatedReplicas:
		return fmt.Sprintf("Waiting for deployment %q rollout to finish: %d of %d updated replicas are available...", d.Name, s.AvailableReplicas, s.UpdatedReplicas), false, nil
	}
	return fmt.Sprintf("deployment %q successfully rolled out", d.Name), true, nil
}

// printReplicaSets prints the Deployment's ReplicaSets, oldest revision first.
func printReplicaSets(ctx context.Context, client kubernetes.Interface, ns, name string, out io.Writer) error {
	d, err := client.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	list, err := client.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	var owned []appsv1.ReplicaSet
	for _, rs := range list.Items {
		if ref := metav1.GetControllerOf(&rs); ref != nil && ref.UID == d.UID {
			owned = append(owned, rs)
		}
	}
	revision := func(rs appsv1.ReplicaSet) int {
		n, _ := strconv.Atoi(rs.Annotations["deployment.kubernetes.io/revision"])
		return n
	}
	slices.SortFunc(owned, func(a, b appsv1.ReplicaSet) int { return revision(a) - revision(b) })

	fmt.Fprintf(out, "ReplicaSets of deployment %q:\n", name)
	tw := tabwriter.NewWriter(out, 0, 0, 3, ' ', 0)
	fmt.Fprintln(tw, "  NAME\tREVISION\tDESIRED\tCURRENT\tREADY\tIMAGE")
	for _, rs := range owned {
		desired := int32(0)
		if rs.Spec.Replicas != nil {
			desired = *rs.Spec.Replicas
		}
		image := ""
		if cs := rs.Spec.Template.Spec.Containers; len(cs) > 0 {
			image = cs[0].Image
		}
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t%d\t%s\n", rs.Name, revision(rs), desired, rs.Status.Replicas, rs.Status.ReadyReplicas, image)
	}
	return tw.Flush()
}
