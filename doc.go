// Package ctrlkit is a library of the Kubernetes controller pattern: the
// parts an operator author needs between client-go's informers and the
// business logic of a controller, and nothing that ties a program to a
// framework.
//
// The packages, in the order an event flows through them:
//
//   - handler turns informer events (add, update, delete, tombstones) into
//     keys: the object itself, its controller owner, or any mapping function,
//     filtered by predicates.
//   - workqueue holds the keys: a typed, rate-limited, delaying queue with
//     priorities and fairness lanes that never hands one key to two workers at
//     once. It satisfies client-go's workqueue.TypedRateLimitingInterface, so
//     it drops in wherever client-go's queue is used.
//   - controller runs a worker pool that calls a Reconciler for each key, with
//     backoff on errors, RequeueAfter, terminal errors, panic recovery, metrics
//     and structured logging; its Manager runs several controllers in one
//     process with leader election, health and metrics endpoints.
//   - deployment is kube-controller-manager's Deployment sync logic as a
//     Reconciler that other programs embed.
//
// The examples folder has runnable programs: a standalone Deployment
// controller-manager, a custom controller and an embedding example.
package ctrlkit
