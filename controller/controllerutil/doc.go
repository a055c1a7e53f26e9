// Package controllerutil has the helpers a reconciler writes every day, on
// client-go's typed clients and on typed.Client alike, with the names and
// errors controller-runtime's users know:
//
//   - owner references: [SetControllerReference] (failing with
//     [AlreadyOwnedError] on an object controlled by someone else, and on
//     the cross-namespace and namespaced-owner-of-cluster-scoped references
//     the garbage collector rejects), [SetOwnerReference], and
//     [ControllerReferenceApplyConfiguration] for server-side apply;
//   - [CreateOrUpdate] and [CreateOrPatch], returning an [OperationResult];
//     [Cached] serves their reads from an informer;
//   - finalizers: [AddFinalizer], [RemoveFinalizer], [ContainsFinalizer],
//     and [Finalize], the deletion flow that runs a cleanup before removing
//     the finalizer;
//   - status conditions: [SetCondition], apimachinery's
//     meta.SetStatusCondition with the condition's observedGeneration set,
//     and [IsConditionCurrent]; [MarkReconciling], [MarkStalled] and
//     [MarkReady] keep Ready and the conditions kstatus reads (Reconciling
//     and Stalled, "abnormal-true") consistent.
//
// The helpers take small interfaces ([Getter], [Creator], [Updater],
// [Patcher]) with the method signatures generated clients have, so that
// client.AppsV1().Deployments(ns) and a typed.Client[*WebApp] are passed
// as they are:
//
//	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name}}
//	d, result, err := controllerutil.CreateOrUpdate(ctx, client.AppsV1().Deployments(app.Namespace), d,
//		func(d *appsv1.Deployment) error {
//			d.Spec.Replicas = &app.Spec.Replicas
//			return controllerutil.SetControllerReference(app, webAppKind, d)
//		})
//
// Server-side apply needs no helper beyond the owner reference: client-go's
// typed clients take apply configurations (k8s.io/client-go/applyconfigurations),
// and typed.Client applies a T.
package controllerutil
