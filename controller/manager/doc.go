// Package manager runs a controller process: several controllers and
// informer factories, leader election on a Lease, /healthz, /readyz and
// /metrics, signal handling and an ordered graceful shutdown — the parts of
// kube-controller-manager around the controllers themselves.
//
// # Running
//
//	mgr, err := manager.New(manager.Options{
//		HealthProbeAddr: ":10257",
//		MetricsAddr:     ":8080",
//		LeaderElection: manager.LeaderElection{
//			Enabled: true, Client: client,
//			Namespace: "kube-system", Name: "my-controller",
//			ReleaseOnCancel: true,
//		},
//	})
//	mgr.AddInformerFactory(manager.Factory(factory)) // started by Run, with informers requested later
//	mgr.Add(deploymentController)                    // a controller.Controller[K], or any Runnable
//	err = mgr.Run(manager.SetupSignalHandler())
//
// A client-go factory starts only the informers requested before its Start.
// The Manager starts its factories again every second while it runs, so an
// informer a runnable requests later (in its Run, say) starts within a
// second too, instead of serving an empty cache. An informer that a
// runnable watches (WatchedInformers, see InformerWatcher) and nothing
// starts, typically because its factory was never added, fails Run within
// seconds with ErrInformerNotStarted, naming it.
//
// Options.BindFlags registers kube-controller-manager-style flags
// (--leader-elect, --leader-elect-lease-duration, ...) for the same fields,
// on a standard library flag.FlagSet or an spf13/pflag one;
// BindServerFlags and LeaderElection.BindFlags bind each group alone, for
// help printed in sections.
//
// Anything with Run(ctx) error is a Runnable. Optional methods, found by
// type assertion, refine how it is run: Name (unique per Manager; used in
// logs and errors), HasSynced (gates /readyz), NeedLeaderElection
// (default true) and WatchedInformers (checked to start).
// controller.Controller[K] has all four.
//
// # Leader election
//
// Informer factories and runnables that do not need leader election start at
// once, so a standby replica keeps warm caches and is ready; the others start
// when client-go's leaderelection wins the Lease. Losing the Lease stops
// everything and makes Run return ErrLeaderElectionLost: the process should
// exit, as kube-controller-manager does. With ReleaseOnCancel the Lease is
// given up at the end of a clean shutdown, so that a standby takes over
// within a RetryPeriod instead of a LeaseDuration; it is never given up while
// a leader runnable may still be running.
//
// # Sharding
//
// Options.Sharding makes the replicas split the work instead of waiting
// for the Lease: the Manager creates a ring member (Ring, package
// controller/sharding), with LeaderElection's namespace and timings unless
// Sharding sets its own, and runs it on every replica, as a runnable that
// needs no leader election. Controllers built with the builder's Sharded,
// over informers registered with sharding.Shard(factory, mgr.Ring(), ...),
// then run on every replica, each reconciling and caching the keys of its
// range; the others stay behind leader election. Sharding.BindFlags
// registers --shard-ring. The ring stops with the other runnables that
// need no leader election, after the sharded controllers' reconciles have
// returned.
//
// # Shutdown
//
// When the context given to Run is cancelled (or a runnable fails, or the
// Lease is lost), Run stops, waiting for each stage before the next:
//
//  1. runnables that need leader election,
//  2. the other runnables,
//  3. informer factories (their stop channel, then Shutdown if they have it),
//  4. the HTTP servers (/readyz fails from the start of shutdown),
//  5. leader election, releasing the Lease if ReleaseOnCancel,
//  6. the event broadcasters, once the events recorded so far (the
//     leader election's last among them) are written.
//
// GracefulShutdownTimeout bounds the whole sequence. Past it, the remaining
// stages are stopped without waiting, the Lease is left to expire, and Run
// returns ErrShutdownTimeout naming what was still running.
//
// # Events
//
// EventRecorderFor returns an events.k8s.io/v1 recorder (client-go's
// tools/events) for a controller name; CoreV1EventRecorderFor a core/v1 one
// (tools/record), the API kube-controller-manager's controllers record
// with, for ports that must emit upstream's events unchanged. Both write
// through Options.Client, start with the first recorder and stop last in
// the shutdown; without a Client, events are only logged (level 3). With
// Options.Client and no LeaderElection.EventRecorder, leadership changes
// are recorded on the Lease, as kube-controller-manager does.
//
// # Endpoints
//
// /healthz and /readyz answer "ok" or, with status 500, one line per check
// (also with ?verbose); /healthz/<name> and /readyz/<name> run one check.
// Built in: "ping"; "leader-election" on /healthz (fails if the leader has
// not renewed its Lease for 20s past expiry); "shutdown", "informer-sync"
// and "runnable-sync" on /readyz. AddHealthzCheck and AddReadyzCheck add
// more. /metrics serves Options.Registry, or the Manager's own registry
// (Manager.Registry) with the Go and process collectors. Options.PprofAddr
// serves net/http/pprof under /debug/pprof/ (off by default). Endpoints
// given the same address share one server.
//
// # Metrics
//
// With leader election, client-go's leader metrics are on the registry as
// kube-controller-manager exposes them, so that its dashboards and alerts
// apply: leader_election_master_status{name} (1 while leading the Lease
// called name) and leader_election_slowpath_total{name}. client-go reports
// them through one process-wide provider (leaderelection.SetProvider), so
// they are per process and Lease name; ctrlkit_leader_election_is_leader
// {lease,id} is this Manager's own, per candidate. Options.RESTClientMetrics
// adds client-go's rest_client_requests_total{code,method,host} and
// rest_client_request_duration_seconds{verb,host}, also process-wide. If
// another adapter (component-base's, controller-runtime's) took one of
// client-go's hooks first, the Manager logs it and those metrics stay on
// that adapter's registry.
//
// # Authentication
//
// Options.MetricsAuth guards /metrics and /debug/pprof/ as kube-rbac-proxy
// and controller-runtime's filters.WithAuthenticationAndAuthorization do: a
// bearer token, authenticated by a TokenReview and authorized by a
// SubjectAccessReview for the non-resource URL (verb "get" on "/metrics"),
// through Options.Client; decisions are cached for ten seconds. The Manager
// needs the ClusterRole system:auth-delegator; a scraper needs
//
//	rules:
//	- nonResourceURLs: ["/metrics"]
//	  verbs: ["get"]
//
// The servers speak plain HTTP: keep tokens on a network others cannot read.
package manager
