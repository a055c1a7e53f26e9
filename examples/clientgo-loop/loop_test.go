package main

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// scripted is a Reconciler that answers each key with a fixed outcome and
// counts calls.
type scripted struct {
	outcomes map[string]func() (controller.Result, error)
	calls    map[string]int
}

func (s *scripted) Reconcile(_ context.Context, key string) (controller.Result, error) {
	s.calls[key]++
	return s.outcomes[key]()
}

func TestProcessNextFollowsTheReconcileContract(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &scripted{calls: map[string]int{}, outcomes: map[string]func() (controller.Result, error){
			"ns/ok":     func() (controller.Result, error) { return controller.Result{}, nil },
			"ns/later":  func() (controller.Result, error) { return controller.Result{RequeueAfter: time.Minute}, nil },
			"ns/broken": func() (controller.Result, error) { return controller.Result{}, errors.New("boom") },
			"ns/terminal": func() (controller.Result, error) {
				return controller.Result{}, controller.TerminalError(errors.New("bad"))
			},
		}}
		l := &loop{
			queue:      workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]()),
			reconciler: r,
		}
		defer l.queue.ShutDown()
		ctx := context.Background()
		drain := func() {
			for l.queue.Len() > 0 {
				l.processNext(ctx)
			}
		}
		for key := range r.outcomes {
			l.queue.Add(key)
		}
		drain()
		for key := range r.outcomes {
			if r.calls[key] != 1 {
				t.Errorf("%s reconciled %d times, want 1", key, r.calls[key])
			}
		}

		// Over 200 s, the failing key comes back with exponential backoff
		// (5 ms, 10 ms, ... 82 s: 164 s in all) until 15 retries, then is
		// dropped; the requeued key comes back every minute.
		for range 200 {
			time.Sleep(time.Second)
			synctest.Wait()
			drain()
		}
		want := map[string]int{"ns/ok": 1, "ns/later": 1 + 3, "ns/broken": 1 + maxRetries, "ns/terminal": 1}
		for key, n := range want {
			if r.calls[key] != n {
				t.Errorf("%s reconciled %d times, want %d", key, r.calls[key], n)
			}
		}
		if n := l.queue.NumRequeues("ns/broken"); n != 0 {
			t.Errorf("dropped key still has %d requeues on record", n)
		}
	})
}

func TestReconcilerRunsInAClientGoLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		labels := map[string]string{"app": "web"}
		web := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "web-uid", Generation: 1},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To[int32](3),
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "web:1"}}}},
				Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
					MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromInt32(0))}},
				RevisionHistoryLimit:    ptr.To[int32](10),
				ProgressDeadlineSeconds: ptr.To[int32](600),
			},
		}
		client := fake.NewClientset(web)
		factory := informers.NewSharedInformerFactory(client, 0)
		recorder := record.NewFakeRecorder(100)
		l, err := newLoop(client, factory, recorder)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		factory.Start(ctx.Done())
		done := make(chan error, 1)
		go func() { done <- l.Run(ctx, 2) }()
		defer func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run = %v", err)
			}
			factory.Shutdown()
		}()
		// WaitForCacheSync polls every 100 ms: let virtual time pass.
		time.Sleep(time.Second)
		synctest.Wait()

		rss, err := client.AppsV1().ReplicaSets("default").List(ctx, metav1.ListOptions{})
		if err != nil || len(rss.Items) != 1 || *rss.Items[0].Spec.Replicas != 3 {
			t.Fatalf("ReplicaSets = %+v, %v; want one of 3 replicas", rss, err)
		}
		rs := rss.Items[0]
		if ref := metav1.GetControllerOf(&rs); ref == nil || ref.UID != web.UID {
			t.Errorf("the ReplicaSet's controller is %+v, want the Deployment", ref)
		}
		select {
		case e := <-recorder.Events:
			if e != "Normal ScalingReplicaSet Scaled up replica set "+rs.Name+" from 0 to 3" {
				t.Errorf("event %q, want the scale-up", e)
			}
		default:
			t.Error("no event recorded")
		}

		// A ReplicaSet event wakes its Deployment: its status follows.
		rs.Status = appsv1.ReplicaSetStatus{Replicas: 3, ReadyReplicas: 3, AvailableReplicas: 3, ObservedGeneration: 1}
		if _, err := client.AppsV1().ReplicaSets("default").UpdateStatus(ctx, &rs, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		d, err := client.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
		if err != nil || d.Status.AvailableReplicas != 3 || d.Status.UpdatedReplicas != 3 {
			t.Errorf("Deployment status = %+v, %v; want 3 available and updated", d.Status, err)
		}
	})
}
