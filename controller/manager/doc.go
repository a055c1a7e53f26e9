// Package manager runs a controller process: controllers and informer
// factories, leader election on a Lease, /healthz, /readyz and /metrics,
// signal handling and an ordered graceful shutdown — the parts of
// kube-controller-manager around the controllers (reasons in DESIGN.md).
//
//	mgr, err := manager.New(manager.Options{
//		Client:          client,
//		HealthProbeAddr: ":10257",
//		MetricsAddr:     ":8080",
//		Lease:           lease.Config{Namespace: "kube-system"},
//		LeaderElection: manager.LeaderElection{
//			Enabled: true, Name: "my-controller", ReleaseOnCancel: true,
//		},
//	})
//	mgr.AddInformerFactory(manager.Factory(factory)) // started once, by Run
//	mgr.Add(deploymentController)                    // a controller.Controller[K], or any Runnable
//	err = mgr.Run(manager.SetupSignalHandler())
//
// Request informers before Run: the Manager starts each factory once, and
// client-go starts only the informers requested by then. A runnable
// watching an informer (InformerWatcher) that nothing starts fails Run with
// ErrInformerNotStarted. Added to a running Manager, factories and
// runnables start at once (leader runnables while leading).
//
// AddOptional runs a part of the operator (controllers and factories built
// by Optional.Setup) only while the custom resources it needs are served:
// absent, the Manager is ready and quiet; installed, the part starts;
// deleted, it stops and its caches are released. /readyz?verbose and
// ctrlkit_optional_resource_watched say what each part watches.
//
// Anything with Run(ctx) error is a Runnable; optional methods (Name,
// HasSynced, NeedLeaderElection, WatchedInformers), found by type
// assertion, refine how it runs. The webhook server (Options.WebhookServer)
// runs on every replica, listening before any informer starts: a first
// list may need conversion. Options.BindFlags registers
// kube-controller-manager's and controller-runtime's flags.
//
// # Leases
//
// Options.Lease (package controller/lease) is this process's identity and
// timings on Leases, for leader election and the shard ring.
//
// With LeaderElection enabled, factories and runnables that need no leader
// election start at once (a standby keeps warm caches and is ready); the
// others start when client-go's leaderelection wins the Lease. Losing it
// stops everything and Run returns ErrLeaderElectionLost: exit, as
// kube-controller-manager does. ReleaseOnCancel gives the Lease up at the
// end of a clean shutdown, never while a leader runnable may still run.
// LeaderElection.Coordinated lets the API server pick the leader (KEP-4355).
//
// With Options.Sharding.Ring set, the Manager runs a member of a shard ring
// (Manager.Ring, package controller/sharding) on every replica: controllers
// built with the builder's Sharded, over informers registered with
// sharding.Shard, run on every replica, each on its own range of keys.
//
// # Shutdown
//
// When Run's context is cancelled, a runnable fails or the Lease is lost,
// Run stops in stages: leader runnables; other runnables; informer
// factories; webhook servers (draining); HTTP servers (/readyz fails
// first); leader election (ReleaseOnCancel); event broadcasters.
// GracefulShutdownTimeout bounds it; past it, Run returns
// ErrShutdownTimeout naming what still ran.
//
// # Events, endpoints, metrics
//
// EventRecorderFor returns a core/v1 record.EventRecorder, as
// controller-runtime's GetEventRecorderFor does; EventsV1RecorderFor an
// events.k8s.io/v1 one. Both write through Options.Client (without it,
// events are only logged) and stop last. Leadership changes are recorded
// on the Lease.
//
// /healthz and /readyz run the built-in checks and those of
// AddHealthzCheck and AddReadyzCheck. /metrics serves Manager.Registry,
// with client-go's metrics under kube-controller-manager's names;
// PprofAddr serves net/http/pprof. MetricsAuth guards /metrics and
// /debug/pprof/ with TokenReview and SubjectAccessReview, as
// kube-rbac-proxy does;
// MetricsTLS serves them over HTTPS: files reloaded on change, a tls.Config
// or the webhooks' Secret (certs.SelfManaged). In a cluster use both, as
// kubebuilder does; plain HTTP sends tokens in clear: local runs only.
package manager
