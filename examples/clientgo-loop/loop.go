package main

import (
	"context"
	"fmt"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/deployment"
)

// maxRetries is how often a failing key is retried before it is dropped
// until its next event, as in kube-controller-manager.
const maxRetries = 15

// loop is a client-go style controller: informers feed keys into client-go's
// queue, workers hand them to a Reconciler.
type loop struct {
	queue      workqueue.TypedRateLimitingInterface[string]
	reconciler controller.Reconciler[string]
	synced     []cache.InformerSynced
	rsLister   appslisters.ReplicaSetLister
}

// newLoop builds the Reconciler on factory's listers and registers the event
// handlers. Call it before factory.Start.
func newLoop(client kubernetes.Interface, factory informers.SharedInformerFactory, recorder record.EventRecorder) (*loop, error) {
	dInformer := factory.Apps().V1().Deployments()
	rsInformer := factory.Apps().V1().ReplicaSets()
	podInformer := factory.Core().V1().Pods()
	// The Reconciler finds a Deployment's pods through this index.
	if err := deployment.AddPodControllerIndex(podInformer.Informer()); err != nil {
		return nil, err
	}
	r, err := deployment.New(deployment.Config{
		Client:      client,
		Deployments: dInformer.Lister(),
		ReplicaSets: rsInformer.Lister(),
		Pods:        podInformer.Informer().GetIndexer(),
		Recorder:    recorder,
	})
	if err != nil {
		return nil, err
	}
	l := &loop{
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "deployment"}),
		reconciler: r,
		rsLister:   rsInformer.Lister(),
		synced: []cache.InformerSynced{
			dInformer.Informer().HasSynced, rsInformer.Informer().HasSynced, podInformer.Informer().HasSynced,
		},
	}
	handlers := []struct {
		informer cache.SharedIndexInformer
		handler  cache.ResourceEventHandler
	}{
		{dInformer.Informer(), cache.ResourceEventHandlerFuncs{
			AddFunc:    l.enqueueObject,
			UpdateFunc: func(_, obj any) { l.enqueueObject(obj) },
			DeleteFunc: l.enqueueObject,
		}},
		{rsInformer.Informer(), cache.ResourceEventHandlerFuncs{
			AddFunc:    l.enqueueOwner,
			UpdateFunc: func(_, obj any) { l.enqueueOwner(obj) },
			DeleteFunc: l.enqueueOwner,
		}},
		// Recreate waits for old pods to be gone.
		{podInformer.Informer(), cache.ResourceEventHandlerFuncs{DeleteFunc: l.enqueuePodOwner}},
	}
	for _, h := range handlers {
		if _, err := h.informer.AddEventHandler(h.handler); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// Run waits for the caches, runs workers until ctx is cancelled, then
// drains: in-flight reconciles finish before Run returns.
func (l *loop) Run(ctx context.Context, workers int) error {
	defer utilruntime.HandleCrashWithContext(ctx)
	logger := klog.FromContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), l.synced...) {
		l.queue.ShutDown()
		return fmt.Errorf("caches did not sync: %w", context.Cause(ctx))
	}
	logger.Info("Starting workers", "count", workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for l.processNext(ctx) {
			}
		})
	}
	<-ctx.Done()
	logger.Info("Shutting down workers")
	l.queue.ShutDownWithDrain()
	wg.Wait()
	// The delaying queue's ShutDownWithDrain leaves its timer goroutine
	// running; only ShutDown stops it.
	l.queue.ShutDown()
	return nil
}

// processNext reconciles one key and applies the Reconciler's answer to the
// queue. It returns false once the queue is shut down.
func (l *loop) processNext(ctx context.Context) bool {
	key, shutdown := l.queue.Get()
	if shutdown {
		return false
	}
	defer l.queue.Done(key)

	logger := klog.FromContext(ctx)
	res, err := l.reconciler.Reconcile(ctx, key)
	switch {
	case err == nil:
		l.queue.Forget(key)
		if res.RequeueAfter > 0 {
			l.queue.AddAfter(key, res.RequeueAfter)
		}
	case controller.IsTerminal(err):
		l.queue.Forget(key)
		logger.Error(err, "Dropping deployment: retrying cannot help", "key", key)
	case l.queue.NumRequeues(key) < maxRetries:
		logger.V(2).Info("Error syncing deployment, retrying", "key", key, "err", err)
		l.queue.AddRateLimited(key)
	default:
		l.queue.Forget(key)
		logger.Error(err, "Dropping deployment out of the queue", "key", key, "retries", maxRetries)
	}
	return true
}

// enqueueObject adds a Deployment's key; tombstones have a key too.
func (l *loop) enqueueObject(obj any) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	l.queue.Add(key)
}

// enqueueOwner adds the Deployment that controls a ReplicaSet. (Orphans that
// a Deployment could adopt are found on its next sync; deployment.NewController
// has kube-controller-manager's complete rules.)
func (l *loop) enqueueOwner(obj any) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	o, ok := obj.(metav1.Object)
	if !ok {
		return
	}
	if ref := metav1.GetControllerOfNoCopy(o); ref != nil && ref.Kind == "Deployment" && ref.APIVersion == appsv1.SchemeGroupVersion.String() {
		l.queue.Add(o.GetNamespace() + "/" + ref.Name)
	}
}

// enqueuePodOwner adds the Deployment of a deleted pod's ReplicaSet.
func (l *loop) enqueuePodOwner(obj any) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	ref := metav1.GetControllerOfNoCopy(pod)
	if ref == nil || ref.Kind != "ReplicaSet" {
		return
	}
	rs, err := l.rsLister.ReplicaSets(pod.Namespace).Get(ref.Name)
	if err != nil || rs.UID != ref.UID {
		return
	}
	l.enqueueOwner(rs)
}
