package upstreamcheck

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	upstream "k8s.io/kubernetes/pkg/controller/deployment"
	"k8s.io/utils/ptr"

	ours "github.com/ctrlkit/ctrlkit/deployment"
)

// TestEventRoutingMatchesUpstream feeds the same informer events to
// kube-controller-manager's Deployment event handlers and to ours
// (deployment.NewController), and compares which Deployments each enqueues
// after every change. Both sets of handlers hang off one informer factory,
// inside a synctest bubble so that "every event delivered" is a
// synctest.Wait away.
func TestEventRoutingMatchesUpstream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		foo := dep("foo", 2, "v1")
		baz := dep("baz", 1, "v1") // selects app=foo too
		baz.Spec.Selector = foo.Spec.Selector.DeepCopy()
		bar := dep("bar", 1, "v1")
		bar.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
		fooRS := rsFor(foo, "v1", "1", 2, 2, 10)
		barRS := rsFor(bar, "v1", "1", 1, 1, 10)
		fooPod, barPod := pod(fooRS, "foo-pod", corev1.PodRunning), pod(barRS, "bar-pod", corev1.PodRunning)

		ctx, cancel := context.WithCancel(context.Background())
		client := fake.NewClientset(foo, baz, bar, fooRS, barRS, fooPod, barPod)
		factory := informers.NewSharedInformerFactory(client, 0)

		dc, err := upstream.NewDeploymentController(ctx, factory.Apps().V1().Deployments(), factory.Apps().V1().ReplicaSets(), factory.Core().V1().Pods(), client)
		if err != nil {
			t.Fatal(err)
		}
		var upstreamKeys []string
		setUnexported(dc, "enqueueDeployment", func(d *appsv1.Deployment) {
			upstreamKeys = append(upstreamKeys, d.Namespace+"/"+d.Name)
		})
		ctrl, _, err := ours.NewController(client, factory, record.NewFakeRecorder(100), ours.Options{})
		if err != nil {
			t.Fatal(err)
		}
		queue := ctrl.Queue()
		ourKeys := func() []string {
			var keys []string
			for queue.Len() > 0 {
				k, _ := queue.Get()
				queue.Done(k)
				queue.Forget(k)
				keys = append(keys, k)
			}
			return keys
		}
		asSet := func(keys []string) []string {
			slices.Sort(keys)
			return slices.Compact(keys)
		}

		factory.Start(ctx.Done())
		synctest.Wait()
		upstreamKeys, _ = nil, ourKeys() // the initial lists

		// The fake API server does not move resourceVersion, and both sides
		// ignore updates that keep it (resyncs): move it by hand.
		rv := 100
		bump := func(o metav1.Object) {
			rv++
			o.SetResourceVersion(fmt.Sprint(rv))
		}
		deletedAt := ptr.To(metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
		rsClient := client.AppsV1().ReplicaSets(ns)
		orphan := rsFor(foo, "o1", "1", 1, 1, 5)
		orphan.OwnerReferences = nil
		steps := []struct {
			name string
			do   func() error
		}{
			{"orphan created, two Deployments match", func() error { _, err := rsClient.Create(ctx, orphan, metav1.CreateOptions{}); return err }},
			{"orphan relabelled to another Deployment", func() error {
				o := orphan.DeepCopy()
				o.Labels = map[string]string{"app": "bar"}
				bump(o)
				_, err := rsClient.Update(ctx, o, metav1.UpdateOptions{})
				return err
			}},
			{"orphan updated without label change", func() error {
				o, _ := rsClient.Get(ctx, orphan.Name, metav1.GetOptions{})
				o.Annotations = map[string]string{"touched": "yes"}
				bump(o)
				_, err := rsClient.Update(ctx, o, metav1.UpdateOptions{})
				return err
			}},
			{"owned ReplicaSet updated with the same resourceVersion (a resync)", func() error {
				o, _ := rsClient.Get(ctx, fooRS.Name, metav1.GetOptions{})
				o.Status.ObservedGeneration = 1
				_, err := rsClient.UpdateStatus(ctx, o, metav1.UpdateOptions{})
				return err
			}},
			{"owned ReplicaSet updated", func() error {
				o, _ := rsClient.Get(ctx, fooRS.Name, metav1.GetOptions{})
				o.Status.ReadyReplicas = 1
				bump(o)
				_, err := rsClient.UpdateStatus(ctx, o, metav1.UpdateOptions{})
				return err
			}},
			{"controller ref moved to another Deployment", func() error {
				o, _ := rsClient.Get(ctx, fooRS.Name, metav1.GetOptions{})
				o.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(baz, appsv1.SchemeGroupVersion.WithKind("Deployment"))}
				bump(o)
				_, err := rsClient.Update(ctx, o, metav1.UpdateOptions{})
				return err
			}},
			{"controller ref removed", func() error {
				o, _ := rsClient.Get(ctx, fooRS.Name, metav1.GetOptions{})
				o.OwnerReferences = nil
				bump(o)
				_, err := rsClient.Update(ctx, o, metav1.UpdateOptions{})
				return err
			}},
			{"ReplicaSet created already being deleted", func() error {
				rs := rsFor(foo, "v9", "9", 0, 0, 1)
				rs.DeletionTimestamp = deletedAt
				rs.Finalizers = []string{"x"}
				_, err := rsClient.Create(ctx, rs, metav1.CreateOptions{})
				return err
			}},
			{"ReplicaSet owned by a missing Deployment", func() error {
				rs := rsFor(dep("ghost", 1, "v1"), "g", "1", 1, 1, 1)
				_, err := rsClient.Create(ctx, rs, metav1.CreateOptions{})
				return err
			}},
			{"ReplicaSet owned by a Deployment of the same name but another UID", func() error {
				impostor := foo.DeepCopy()
				impostor.UID = "not-foo"
				rs := rsFor(impostor, "i", "1", 1, 1, 1)
				_, err := rsClient.Create(ctx, rs, metav1.CreateOptions{})
				return err
			}},
			{"pod of a Recreate Deployment deleted", func() error {
				return client.CoreV1().Pods(ns).Delete(ctx, barPod.Name, metav1.DeleteOptions{})
			}},
			{"pod of a RollingUpdate Deployment deleted", func() error {
				return client.CoreV1().Pods(ns).Delete(ctx, fooPod.Name, metav1.DeleteOptions{})
			}},
			{"owned ReplicaSet deleted", func() error { return rsClient.Delete(ctx, barRS.Name, metav1.DeleteOptions{}) }},
			{"orphan deleted", func() error { return rsClient.Delete(ctx, orphan.Name, metav1.DeleteOptions{}) }},
			{"Deployment updated", func() error {
				d, _ := client.AppsV1().Deployments(ns).Get(ctx, "foo", metav1.GetOptions{})
				d.Spec.Replicas = ptr.To[int32](5)
				bump(d)
				_, err := client.AppsV1().Deployments(ns).Update(ctx, d, metav1.UpdateOptions{})
				return err
			}},
			{"Deployment deleted", func() error { return client.AppsV1().Deployments(ns).Delete(ctx, "baz", metav1.DeleteOptions{}) }},
		}
		for _, step := range steps {
			if err := step.do(); err != nil {
				t.Fatalf("%s: %v", step.name, err)
			}
			synctest.Wait()
			want, got := asSet(upstreamKeys), asSet(ourKeys())
			upstreamKeys = nil
			if !slices.Equal(want, got) {
				t.Errorf("%s: upstream enqueues %q, ours %q", step.name, want, got)
			} else {
				t.Logf("%s: both enqueue %q", step.name, want)
			}
		}

		cancel()
		queue.ShutDown()
		getUnexported(dc, "queue").(interface{ ShutDown() }).ShutDown()
		getUnexported(dc, "eventBroadcaster").(record.EventBroadcaster).Shutdown()
		synctest.Wait()
	})
}
