// Package sharding scales a controller-manager out across replicas: the
// replicas form a ring on coordination.k8s.io Leases, split the 64-bit hash
// space of their keys into ranges, cut where the keys are so that each
// member gets an equal share, and each reconciles, and caches, only the
// keys of its ranges. A key changes hands
// only after its old owner has let go of it, so that no key is ever
// reconciled by two replicas at once.
//
// # Keys
//
// A namespaced object belongs to the hash of its namespace, a
// cluster-scoped one to the hash of its name (KeyHash): the 64-bit FNV-1a
// hash of k8s.io/apimachinery/pkg/sharding, which the API server computes
// for a ShardSelector on object.metadata.namespace (KEP-5866, sharded list
// and watch). So a Deployment, its ReplicaSets and its Pods always share a
// shard, and one replica sees a whole family; a namespace is never split,
// so a ring balances well only over many namespaces. Nor does FNV-1a mix
// a name's last bytes into the high bits: names that differ only in a
// short suffix cluster (of "ns-0" to "ns-299", 290 hash into the middle
// third of the space), so equal ranges (Assign) would split them 10, 290
// and 0 over three replicas. The API server's hash decides, so a ring
// cannot remix it; it chooses where to cut.
//
// Rebalance chooses the cut points from the hashes of the keys that
// exist: an Assignment gives each member one or more segments of the
// space (its ShardSelector joins their shardRange terms with ||), so that
// each holds an equal share, within DefaultHysteresis (15 %) of the mean,
// unless one key alone is larger. A share counts what the caller weighs a
// Key by. Counting namespaces (weight 1) balances the work of keeping
// caches and watches per namespace, and is exact on any naming scheme
// (largest/mean ≤ 1.003 for 2 to 7 members over 300 namespaces named
// ns-N, team-N, tenant-NNN, prod-<word> or at random); counting objects
// (weight: the objects in the namespace) balances the reconciles and the
// cache sizes, which is what a replica's memory and CPU follow. Over 300
// namespaces whose sizes follow a Zipf law (s=1.1), counting objects
// holds object imbalance at 1.00-1.06 for 2 to 5 members and at the
// largest namespace over the mean beyond (1.22, 1.42), while counting
// namespaces lets it reach 1.4-2.5; counting objects leaves namespace
// counts 1.1-2.0 apart.
//
// A Ring counts namespaces unless told otherwise (Options.Keys): its
// coordinator sees every namespace through a small informer of names,
// while the objects in a namespace are cached only by the member that
// holds it, so counting them would need every member to publish the
// counts of its ranges. Counting namespaces is exact whatever the names,
// and right when namespaces are of a size; where a few hold most of the
// objects, or many hold none of this controller's, supply Options.Keys
// with object counts.
//
// Rebalance moves as little as it can: while every share is within the
// hysteresis bound and the members have not changed, it keeps the
// assignment as it is, whatever namespaces come and go; otherwise the
// members above the mean give up keys from the top of their hash order
// and those below it, a joiner first, take them in hash order, so a join
// or a leave moves about one mean share (1/n of the keys; 1.00 of a mean
// share on average in the randomized test) rather than most of them.
//
// The API server can
// only select by namespace (or UID), so informers of cluster-scoped
// resources are filtered on the client side only (see ListWatch).
//
// # Membership and the agreed assignment
//
// Each member holds a Lease of its own, named Name-ID in Options.Namespace,
// labelled RingLabel=Name, and renews it every RetryPeriod. The members are
// the live Leases of the ring, sorted by holder identity: a Lease is live
// while it has a holder and has changed within its LeaseDuration, on the
// observer's own clock (as client-go's leader election judges a lease, so
// that clock skew between replicas does not matter).
//
// The live member with the smallest ID is the coordinator. Each round it
// runs Rebalance over the live members and the keys (Options.Keys),
// starting from the assignment it holds (or, just joined, from the one the
// ring's Leases show, so that a new coordinator keeps the ring's cuts),
// and publishes the result on its Lease (AssignmentAnnotation). The others
// adopt what the coordinator's Lease says. A member's ranges in the
// assignment it holds are its target, and informers cache the target.
// Since Rebalance keeps an assignment within its hysteresis bound as it
// is, namespaces coming and going move nothing until a share leaves the
// bound, and ctrlkit_shard_rebalances_total counts the moves.
//
// # Handover
//
// A member hands out (Acquire) only keys in its serving ranges, a part of
// its target, and counts the ones in flight. The protocol:
//
//  1. Shrink at once. When a member adopts an assignment, its serving
//     ranges shrink to serving ∩ target in the same step: keys it lost
//     are no longer handed out.
//  2. Acknowledge once drained. When no reconcile of a key outside its
//     target is in flight any more, the member records the assignment's
//     ID as drained-for and publishes it at once, renewing its Lease a
//     second time in that round, in the annotation DrainedForAnnotation
//     ("I run and will start nothing outside my ranges of this
//     assignment").
//  3. Extend only when everyone has let go. A member starts serving its
//     whole target only when its own acknowledgement of the assignment
//     was published before the round's list, and that list shows every
//     other live member acknowledging the same assignment. A member whose
//     Lease expired, or was released, is not waited for.
//  4. Fence on lost contact. A member whose last successful renewal
//     started RenewDeadline ago hands out nothing until it renews again.
//     Others consider it gone only after LeaseDuration without a change to
//     its Lease on their clocks, which is later, since they observed its
//     last renewal after it was sent.
//  5. Leave cleanly. On shutdown (Run's context ends) a member hands out
//     nothing, waits for its in-flight reconciles, then releases its Lease
//     (empty holder): the others take its ranges without waiting for expiry.
//
// Why no key is held twice: say members X and Y both hold key k, X having
// started serving it (step 3) before Y. When Y extended, its list showed X
// live (X still serves, so it is not fenced, so its Lease has not expired
// for anyone) and acknowledging Y's assignment A, in which k is Y's, not
// X's. X's acknowledgement of A was true when published and stays true
// until X extends under another assignment, which needs its own
// acknowledgement of that one published first, which would have replaced
// A in its Lease before Y's list. So X was not serving k when Y looked,
// contradicting that it has served k since before. Nothing here depends
// on who computed A: members that briefly follow different coordinators
// cannot extend until they acknowledge one assignment. (Reads are linearizable: the Leases are
// listed with resourceVersion "", a consistent read.)
//
// An assignment change costs two or three rounds (RetryPeriod each) plus the
// time the old owners take to drain. A crashed member's ranges are served
// again within LeaseDuration plus four rounds at worst: its last renewal
// seen up to a round late, its expiry judged at the next round after
// LeaseDuration (the acknowledgements go out in that round), the extension
// at the next list, and one round more if the members' rounds are out of
// step. That is within LeaseDuration + RenewDeadline while four rounds fit
// in RenewDeadline, as with client-go's timings (8 s against 10 s);
// measured 4.4-4.5 s with LeaseDuration 4 s and RetryPeriod 250 ms.
//
// # Failure cases
//
//   - A member crashes: its reconciles die with it; its Lease stays until
//     it expires, LeaseDuration after its last renewal as the others
//     observe it, then its range is reassigned. Its Lease object is never
//     deleted (the ring needs no delete permission); a new member waits up
//     to one LeaseDuration for such stale Leases to count as expired.
//   - A member loses the API server but keeps running: it fences itself
//     after RenewDeadline. Its reconciles already in flight keep running;
//     the protocol relies on them ending within LeaseDuration −
//     RenewDeadline (5s by default): set the controller's ReconcileTimeout
//     below that, and note that a write already sent may still land later.
//   - A reconcile of a lost key does not return: the member does not
//     acknowledge, and the new owner waits. After DrainTimeout the member
//     stops renewing and Run returns ErrDrainTimeout (the manager shuts
//     down); its range moves when its Lease expires, while that reconcile
//     may still be running: the one case the protocol cannot close, as
//     Go cannot stop a goroutine.
//   - Members disagree on who is live, or on the coordinator (a Lease
//     seen at different times by different members): nobody extends until
//     every live member acknowledges the same assignment, so disagreement
//     costs progress, never safety.
//   - A member joins with the smallest ID: it becomes the coordinator and
//     rebalances from the assignment the ring's Leases show, so its join
//     moves a fair share, not the ring's layout.
//   - Two processes with one ID share a Lease and a range: IDs must be
//     unique (the default adds a random suffix to the host name).
//   - The API server is unreachable for everyone: every member fences, and
//     nothing is reconciled until it is back.
//
// # Controllers and informers
//
// Gate and StringKeyGate admit a controller's keys through a Ring
// (controller.Options.Gate): keys of other members are dropped, keys not
// handed over yet retried later, and a reconcile counts as in flight until
// it returns. ListWatch restricts an informer to the target, server-side
// with ListOptions.ShardSelector where the API server honours it
// (ListMeta.ShardInfo set, feature gate ShardedListAndWatch), and always
// client-side too, before the cache. When the ranges change (a range lost
// at once, a range gained when the member starts serving it), an
// informer registered by Informer moves its watch in place: it lists the
// new ranges and passes on, as watch events, what turns its store into
// that list (the objects lost leave as deletions, as they do from a
// selector's watch), then watches on. Ending the watch instead would
// leave the whole cache, kept ranges too, standing still for the
// reflector's relist backoff (0.8 s, doubling within two minutes up to
// 30 s), while kept keys are reconciled on it; a plain ListWatch, which
// cannot see its informer's store, still does that, with "resource
// version expired". Informer (and Shard, for
// several resources at once) registers such an informer in a client-go
// SharedInformerFactory, so that the factory's typed accessors and
// listers, and typed.NewSharedInformer, return it.
//
// A member admits a key only once every informer registered by Informer
// has listed the key's range and delivered that list to its cache (per
// informer: the Deployment informer's relist does not stand for the
// ReplicaSet informer's), with a list that began after the member began
// serving the range: a consistent read, which holds what the old owner
// wrote before it let go. So a gained range is listed once, after the
// handover; a range lost is dropped from the caches at once. This
// composes with the handover as a second, local condition on Acquire:
// the handover decides when a range may be served (no other member holds
// it), the caches when its keys may be reconciled (this member sees them
// whole); a gained key is Pending until the handover, then Listing until
// its caches hold it (the Gate retries it after RetryPeriod, then after
// 100 ms), kept keys stay admitted while the informers list, and the
// acknowledgement of lost keys does not wait for caches.
//
// # With a manager
//
// An operator shards with three calls: manager.Options.Sharding names the
// ring (the manager creates the Ring with its leader election's namespace
// and timings and runs it on every replica, next to its leader Lease:
// Manager.Ring); Shard registers, in the informer factory, informers of
// the controller's resources that list and watch only this member's range
// (ResourceOf takes a client-go typed client or a ctrlkit typed.Client);
// and the builder's Sharded makes the controller the ring's: its keys go
// through the ring's Gate (KeyGate: a "namespace/name" string or a
// types.NamespacedName key belongs to its namespace, or to its name when
// it has none; ShardedBy names the object of any other key), its
// reconciles time out after ReconcileTimeout, and it runs on every
// replica. The builder refuses informers the ring did not make (RingOf).
// Without a ring both Shard and Sharded do nothing, so one program runs
// sharded or not by a flag (manager.Sharding.BindFlags: --shard-ring).
// Controllers that must run once per cluster stay leader-only. On
// shutdown the manager stops the sharded controllers and the ring
// together; the ring releases its Lease once their reconciles have
// returned.
//
//	mgr, err := manager.New(manager.Options{Client: client,
//		LeaderElection: manager.LeaderElection{Enabled: true, Namespace: ns, Name: "webapp-operator"},
//		Sharding:       manager.Sharding{Ring: "webapp-operator"}})
//	factory := informers.NewSharedInformerFactory(client, 0)
//	err = sharding.Shard(factory, mgr.Ring(),
//		sharding.ResourceOf(webApps, sharding.Namespaced), // a *typed.Client[*WebApp]
//		sharding.ResourceOf(client.AppsV1().Deployments(""), sharding.Namespaced))
//	_, err = builder.ControllerManagedBy(mgr, "webapp", handler.ObjectKey).
//		For(typed.NewSharedInformer(factory, webApps, typed.InformerOptions{}).Informer(), kind, scope).
//		Owns(factory.Apps().V1().Deployments().Informer()).
//		Sharded().
//		Complete(reconciler)
//
// deployment.NewController follows its factory's informers the same way
// (shard deployment.Resources(client)). Without a manager, run the Ring
// yourself and set controller.Options.Gate and NoLeaderElection.
//
// # Metrics
//
// With Options.Registry: ctrlkit_shard_ring_members (live members seen),
// ctrlkit_shard_range_fraction and ctrlkit_shard_serving_fraction (share
// of the hash space assigned and served), ctrlkit_shard_range_info{start,end}
// (one series per target range), ctrlkit_shard_share (the weight of the
// keys this member holds: namespaces, by default),
// ctrlkit_shard_ring_imbalance (largest share over the mean),
// ctrlkit_shard_largest_key_ratio (the largest key over the mean share:
// the floor of the imbalance, since a key is never split),
// ctrlkit_shard_rebalances_total and ctrlkit_shard_moved_keys_total (on
// the coordinator: assignments it changed, and the weight of the keys they
// moved), ctrlkit_shard_keys_owned (distinct shard keys reconciled in the
// current ranges), ctrlkit_shard_handovers_total{direction} and
// ctrlkit_shard_handover_duration_seconds{direction} (gained: from an
// assignment change to serving the new ranges; lost: to the
// acknowledgement),
// and, for each informer registered by Informer,
// ctrlkit_shard_cached_objects{resource} (the objects in its cache, e.g.
// resource "deployments.apps": those of the target range once it has
// listed), all labelled with the ring's name.
package sharding
