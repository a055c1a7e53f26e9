//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller/envtest"
	"github.com/ctrlkit/ctrlkit/controller/sharding"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// The ring's timings in this test: short, so that a crashed replica's
// namespaces move within seconds. The example derives the reconcile
// timeout from them (4/5 of LeaseDuration − RenewDeadline: 1.6 s).
const (
	shardLeaseDuration = 4 * time.Second
	shardRenewDeadline = 2 * time.Second
	shardRetryPeriod   = 250 * time.Millisecond
	// shardPickupBound is issue 15's promise: a killed replica's
	// namespaces are served again within LeaseDuration + RenewDeadline
	// of the SIGKILL, here as the survivors' Leases showing that they
	// serve the whole hash space. The protocol (package sharding's doc)
	// takes LeaseDuration + 4 rounds of RetryPeriod at worst, so the
	// promise holds while 4·RetryPeriod < RenewDeadline, as here (1 s
	// against 2 s, the rest for API latency) and with client-go's
	// defaults (8 s against 10 s).
	shardPickupBound = shardLeaseDuration + shardRenewDeadline

	shardRing       = "deployments"
	shardNamespaces = 40 // team-1 … team-40, as people name them; 20 more join later
	shardPerNS      = 2  // Deployments per namespace
	// shardMaxShare bounds the run's Deployments one of three replicas
	// caches: a third, and the ring's slack.
	shardMaxShare    = 0.40
	shardRunLabel    = "e2e-shard-run"
	deploymentBinary = "github.com/ctrlkit/ctrlkit/examples/deployment-controller"
)

// TestShardedReplicas is the end-to-end test of sharding across
// processes (issues 15 and 30): replicas of examples/deployment-controller
// --shard-ring, each its own process, roll out 80 Deployments in 40
// namespaces named team-1 … team-40. Three replicas split the ring where
// the namespaces are, and each caches only its namespaces' objects, at
// most 40 % of the Deployments; one is killed with SIGKILL mid-rollout,
// and the survivors take its namespaces over within shardPickupBound; a
// fourth joins during a second rollout, and the ring rebalances; then 20
// namespaces more come with their Deployments, and the ring stays within
// its balance bound. Every rollout completes with one ReplicaSet per
// template, no key is ever reconciled by two replicas at once (from the
// replicas' logs), and no replica fails a reconcile on an object its
// caches did not hold yet. It runs with sharded list and watch on in the
// API server and, in parallel, off (the replicas filter on the client
// side).
func TestShardedReplicas(t *testing.T) {
	bin := buildCommand(t, deploymentBinary)
	for _, tc := range []struct {
		name         string
		cp           *sharedControlPlane
		serverShards bool
	}{
		{"APIServerShards", &ourShardedCP, true},
		{"ClientSideFilter", &ourCP, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			began := time.Now()
			testShardedReplicas(t, tc.cp.get(t), bin, tc.serverShards)
			t.Logf("%s took %s", tc.name, time.Since(began).Round(100*time.Millisecond))
		})
	}
}

func testShardedReplicas(t *testing.T, cp *envtest.Environment, bin string, serverShards bool) {
	s := &shardedRun{t: t, client: cp.Client(), kubeconfig: cp.KubeconfigPath(), bin: bin, run: rand.String(6),
		imagesOf: map[string][]string{}, serverCP: serverShards}
	s.leases = newNamespace(t, s.client)
	s.addNamespaces(1, shardNamespaces)
	t.Cleanup(s.deleteDeployments)

	// Three replicas split the ring.
	replicas := []*shardReplica{s.start("replica-1"), s.start("replica-2"), s.start("replica-3")}
	_, three := s.waitServing(replicas, time.Time{}, time.Minute, "three replicas to split the ring")
	s.createDeployments(s.namespaces, "app:v1")
	s.waitRollouts("app:v1")
	s.checkReplicaSets()
	s.waitCaches(replicas)
	s.checkShares(replicas, three)

	// Roll to a new image; kill the first member (in ID order) mid-way: the
	// coordinator, so that the next takes the ring's cuts over; only the
	// victim's namespaces move.
	s.setImage("app:v2")
	slices.SortFunc(replicas, func(a, b *shardReplica) int { return strings.Compare(a.id, b.id) })
	victim, survivors := replicas[0], replicas[1:]
	s.waitRolloutStarted(victim, "app:v2")
	killed := victim.kill(t)
	pickedUp, two := s.waitServing(survivors, killed, time.Minute, "the survivors to serve the victim's range")
	t.Logf("the SIGKILL moved %d of the run's %d namespaces", s.moved(three, two), len(s.namespaces))
	pickup := pickedUp.Sub(killed)
	t.Logf("the survivors served the whole hash space %s after the SIGKILL (bound %s)", pickup.Round(time.Millisecond), shardPickupBound)
	if pickup > shardPickupBound {
		t.Errorf("the survivors took %s to take over a killed replica's range, want at most LeaseDuration + RenewDeadline = %s", pickup, shardPickupBound)
	}
	s.waitRollouts("app:v2")
	s.checkReplicaSets()
	s.waitCaches(survivors)

	// A fourth replica joins during a second roll.
	s.setImage("app:v3")
	fourth := s.start("replica-4")
	joined := time.Now()
	rebalanced, three := s.waitServing(append(slices.Clone(survivors), fourth), joined, time.Minute, "the ring to rebalance over the fourth replica")
	t.Logf("the ring rebalanced %s after the fourth replica started, moving %d of the run's %d namespaces",
		rebalanced.Sub(joined).Round(time.Millisecond), s.moved(two, three), len(s.namespaces))
	s.waitRollouts("app:v3")
	s.checkReplicaSets()
	final := append(slices.Clone(survivors), fourth)
	s.waitCaches(final)

	// 20 namespaces more, with their Deployments: the ring keeps every
	// share within its bound, moving cut points only if it must.
	added := s.addNamespaces(shardNamespaces+1, shardNamespaces+20)
	s.createDeployments(added, "app:v3")
	s.waitBalanced(final)
	s.waitRollouts("app:v3")
	s.checkReplicaSets()
	s.waitCaches(final)

	s.logTimeouts(final)

	// Graceful shutdown: each leaves the ring, releasing its Lease.
	for _, r := range final {
		if err := r.stop(15 * time.Second); err != nil {
			t.Errorf("%s: %v", r.name, err)
		}
	}
	s.checkReleased(final)

	s.checkNoOverlap(append([]*shardReplica{victim}, final...))
	s.checkNoHalfCacheErrors(append([]*shardReplica{victim}, final...))
	s.checkFiltering(append([]*shardReplica{victim}, final...), serverShards)
}

// shardedRun is one run of the scenario on one control plane.
type shardedRun struct {
	t          *testing.T
	client     kubernetes.Interface
	kubeconfig string
	bin        string
	run        string              // labels this run's objects
	leases     string              // the ring's namespace
	namespaces []string            // the Deployments' namespaces
	imagesOf   map[string][]string // namespace -> every image its Deployments ran, in order
	serverCP   bool                // the control plane is this test's alone: its namespaces are ours and the system's
}

// shardReplica is one replica's process, with its ring member ID and the
// URL of its /metrics, both read from its log.
type shardReplica struct {
	*process
	id      string
	metrics string
}

var (
	metricsServing = regexp.MustCompile(`"Serving".* server="[^"]*metrics server" addr="([^"]+)"`)
	ringMember     = regexp.MustCompile(`"Ring members changed".* member="([^"]+)"`)
)

// start runs a replica until the test ends, and waits for it to join.
func (s *shardedRun) start(name string) *shardReplica {
	s.t.Helper()
	p := startProcess(s.t, name, s.bin,
		"--kubeconfig="+s.kubeconfig,
		"--shard-ring="+shardRing,
		// The manager's own leader election is not needed: the sharded
		// controller runs on every replica. Its namespace and timings are
		// the ring's.
		"--leader-elect=false",
		"--leader-elect-resource-namespace="+s.leases,
		"--leader-elect-lease-duration="+shardLeaseDuration.String(),
		"--leader-elect-renew-deadline="+shardRenewDeadline.String(),
		"--leader-elect-retry-period="+shardRetryPeriod.String(),
		"--metrics-bind-address=127.0.0.1:0",
		"--health-probe-bind-address=0",
		// 20 Deployments a replica roll at once: the default 20 QPS would
		// make reconciles queue for tokens past their timeout.
		"--kube-api-qps=200", "--kube-api-burst=400",
		"--v=5", // "Reconciling" and "Reconciled", for the recorder
	)
	r := &shardReplica{process: p}
	r.metrics = "http://" + p.findInOutput(s.t, 30*time.Second, "its metrics address", metricsServing) + "/metrics"
	r.id = p.findInOutput(s.t, 30*time.Second, "its ring member ID", ringMember)
	return r
}

// waitServing waits until the Leases of members, each written after
// since, say that they serve their ranges in the coordinator's assignment
// (on the Lease of the member with the smallest ID), which assigns the
// hash space to exactly these members; it returns when that was first
// seen, and who serves what.
func (s *shardedRun) waitServing(members []*shardReplica, since time.Time, timeout time.Duration, what string) (time.Time, ownership) {
	s.t.Helper()
	ids := make([]string, len(members))
	for i, m := range members {
		ids[i] = m.id
	}
	slices.Sort(ids)
	var at time.Time
	var owners ownership
	testutil.Eventually(s.t, timeout, what, func(ctx context.Context) (bool, error) {
		leases, err := s.client.CoordinationV1().Leases(s.leases).List(ctx, metav1.ListOptions{LabelSelector: sharding.RingLabel + "=" + shardRing})
		if err != nil {
			return false, err
		}
		now := time.Now()
		o, published := ownership{}, map[string]string{}
		for _, l := range leases.Items {
			if l.Spec.HolderIdentity == nil || l.Spec.RenewTime == nil || !l.Spec.RenewTime.After(since) {
				continue
			}
			id := *l.Spec.HolderIdentity
			rs, err := parseServing(l.Annotations[servingAnnotation])
			if err != nil {
				return false, err
			}
			if len(rs) > 0 {
				o[id] = rs
			}
			published[id] = l.Annotations[assignmentAnnotation]
		}
		if got := slices.Sorted(maps.Keys(o)); !slices.Equal(got, ids) {
			return false, fmt.Errorf("members %v serve, want %v", got, ids)
		}
		assigned, err := parseAssignment(published[ids[0]])
		if err != nil {
			return false, fmt.Errorf("the coordinator %s: %w", ids[0], err)
		}
		if got := slices.Sorted(maps.Keys(assigned)); !slices.Equal(got, ids) {
			return false, fmt.Errorf("the coordinator %s assigns %v, want %v", ids[0], got, ids)
		}
		for _, id := range ids {
			if o[id].String() != assigned[id].String() {
				return false, fmt.Errorf("member %s serves %s, want %s", id, o[id], assigned[id])
			}
		}
		if err := o.partition(); err != nil {
			return false, err
		}
		at, owners = now, o
		return true, nil
	})
	return at, owners
}

// addNamespaces creates the namespaces team-from … team-to, deleted when
// the test ends, and returns their names.
func (s *shardedRun) addNamespaces(from, to int) []string {
	s.t.Helper()
	var added []string
	for i := from; i <= to; i++ {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("team-%d", i)}}
		if _, err := s.client.CoreV1().Namespaces().Create(s.t.Context(), ns, metav1.CreateOptions{}); err != nil {
			s.t.Fatalf("create namespace %s: %v", ns.Name, err)
		}
		s.t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := s.client.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				s.t.Errorf("delete namespace %s: %v", ns.Name, err)
			}
		})
		added = append(added, ns.Name)
	}
	s.namespaces = append(s.namespaces, added...)
	return added
}

// moved counts the run's namespaces whose member differs in a and b.
func (s *shardedRun) moved(a, b ownership) int {
	n := 0
	for _, ns := range s.namespaces {
		if a.ownerOf(ns) != b.ownerOf(ns) {
			n++
		}
	}
	return n
}

// checkShares logs how a splits the run's Deployments and, where the
// control plane's namespaces are the run's and the system's alone, checks
// that no replica holds more than shardMaxShare of them. On a control
// plane shared with other tests, the ring balances all the namespaces,
// theirs too, and a replica's share of the run's alone is not bounded.
func (s *shardedRun) checkShares(replicas []*shardReplica, a ownership) {
	s.t.Helper()
	held := map[string]int{}
	for _, ns := range s.namespaces {
		held[a.ownerOf(ns)] += shardPerNS
	}
	total := len(s.namespaces) * shardPerNS
	s.t.Logf("the run's %d Deployments by replica: %v", total, held)
	if !s.serverCP {
		return
	}
	for _, r := range replicas {
		if share := float64(held[r.id]) / float64(total); share > shardMaxShare {
			s.t.Errorf("%s holds %d of the %d Deployments (%.0f%%), want at most %.0f%%", r.name, held[r.id], total, 100*share, 100*shardMaxShare)
		}
	}
}

// waitBalanced waits until the coordinator's metrics show the ring's
// imbalance (largest share of the cluster's namespaces over the mean)
// within the default bound, and logs its rebalances.
func (s *shardedRun) waitBalanced(replicas []*shardReplica) {
	s.t.Helper()
	coordinator := slices.MinFunc(replicas, func(a, b *shardReplica) int { return strings.Compare(a.id, b.id) })
	var imbalance, rebalances, moved float64
	testutil.Eventually(s.t, time.Minute, "the ring to stay within its balance bound", func(ctx context.Context) (bool, error) {
		families, err := scrape(ctx, coordinator.metrics)
		if err != nil {
			return false, err
		}
		value := func(name string) float64 {
			for _, m := range families[name].GetMetric() {
				return m.GetGauge().GetValue() + m.GetCounter().GetValue()
			}
			return math.NaN()
		}
		imbalance, rebalances, moved = value("ctrlkit_shard_ring_imbalance"), value("ctrlkit_shard_rebalances_total"), value("ctrlkit_shard_moved_keys_total")
		if !(imbalance <= defaultHysteresis) {
			return false, fmt.Errorf("imbalance %v", imbalance)
		}
		return true, nil
	})
	s.t.Logf("the ring's imbalance is %.3f; the coordinator %s rebalanced %v times, moving %v namespaces", imbalance, coordinator.name, rebalances, moved)
}

func (s *shardedRun) createDeployments(namespaces []string, image string) {
	s.t.Helper()
	for _, ns := range namespaces {
		s.imagesOf[ns] = []string{image}
		for i := range shardPerNS {
			d := deploymentSpec{name: fmt.Sprintf("web-%d", i), replicas: 2, image: image,
				maxSurge: intstr.FromInt32(1), maxUnavailable: intstr.FromInt32(0)}.build()
			d.Labels = map[string]string{shardRunLabel: s.run}
			d.Spec.Template.Labels[shardRunLabel] = s.run // so its ReplicaSets and Pods carry it
			if _, err := s.client.AppsV1().Deployments(ns).Create(s.t.Context(), d, metav1.CreateOptions{}); err != nil {
				s.t.Fatalf("create deployment %s/%s: %v", ns, d.Name, err)
			}
		}
	}
}

// setImage starts a rollout of every Deployment to image.
func (s *shardedRun) setImage(image string) {
	s.t.Helper()
	for _, ns := range s.namespaces {
		s.imagesOf[ns] = append(s.imagesOf[ns], image)
		for i := range shardPerNS {
			updateDeployment(s.t, s.client, ns, fmt.Sprintf("web-%d", i), func(d *appsv1.Deployment) {
				d.Spec.Template.Spec.Containers[0].Image = image
			})
		}
	}
}

// deployments lists the run's Deployments.
func (s *shardedRun) deployments(ctx context.Context) ([]appsv1.Deployment, error) {
	list, err := s.client.AppsV1().Deployments(metav1.NamespaceAll).List(ctx, metav1.ListOptions{LabelSelector: shardRunLabel + "=" + s.run})
	if err != nil {
		return nil, err
	}
	if want := len(s.namespaces) * shardPerNS; len(list.Items) != want {
		return nil, fmt.Errorf("%d Deployments, want %d", len(list.Items), want)
	}
	return list.Items, nil
}

// waitRollouts waits until every Deployment runs image, available.
func (s *shardedRun) waitRollouts(image string) {
	s.t.Helper()
	began := time.Now()
	testutil.Eventually(s.t, 2*time.Minute, "every rollout to "+image, func(ctx context.Context) (bool, error) {
		ds, err := s.deployments(ctx)
		if err != nil {
			return false, err
		}
		var pending []string
		var last error
		for i := range ds {
			d := &ds[i]
			if err := rolledOut(d); err != nil || d.Spec.Template.Spec.Containers[0].Image != image {
				pending = append(pending, d.Namespace+"/"+d.Name)
				last = fmt.Errorf("%s/%s: %v", d.Namespace, d.Name, err)
			}
		}
		if len(pending) > 0 {
			return false, fmt.Errorf("%d of %d not rolled out, e.g. %v", len(pending), len(ds), last)
		}
		return true, nil
	})
	s.t.Logf("every Deployment rolled out to %s in %s", image, time.Since(began).Round(100*time.Millisecond))
}

// waitRolloutStarted waits until the rollout to image has begun in one of
// r's namespaces (a ReplicaSet of image exists there): r is then busy
// with it.
func (s *shardedRun) waitRolloutStarted(r *shardReplica, image string) {
	s.t.Helper()
	testutil.Eventually(s.t, time.Minute, r.name+" to start rolling out "+image, func(ctx context.Context) (bool, error) {
		lease, err := s.client.CoordinationV1().Leases(s.leases).Get(ctx, shardRing+"-"+r.id, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		serving, err := parseServing(lease.Annotations[servingAnnotation])
		if err != nil {
			return false, err
		}
		list, err := s.client.AppsV1().ReplicaSets(metav1.NamespaceAll).List(ctx, metav1.ListOptions{LabelSelector: shardRunLabel + "=" + s.run})
		if err != nil {
			return false, err
		}
		for _, rs := range list.Items {
			if rs.Spec.Template.Spec.Containers[0].Image == image && serving.Contains(sharding.KeyHash(rs.Namespace, "")) {
				return true, nil
			}
		}
		return false, fmt.Errorf("no ReplicaSet of %s yet in %s's range %s", image, r.name, serving)
	})
}

// checkReplicaSets checks that each Deployment has exactly one ReplicaSet
// per image rolled out so far: a second owner reconciling a Deployment
// at the same time would create a duplicate (under another hash, after a
// collision).
func (s *shardedRun) checkReplicaSets() {
	s.t.Helper()
	ctx := s.t.Context()
	ds, err := s.deployments(ctx)
	if err != nil {
		s.t.Fatal(err)
	}
	list, err := s.client.AppsV1().ReplicaSets(metav1.NamespaceAll).List(ctx, metav1.ListOptions{LabelSelector: shardRunLabel + "=" + s.run})
	if err != nil {
		s.t.Fatal(err)
	}
	images := map[string][]string{} // by owner UID
	for _, rs := range list.Items {
		ref := metav1.GetControllerOf(&rs)
		if ref == nil {
			s.t.Errorf("ReplicaSet %s/%s has no controller", rs.Namespace, rs.Name)
			continue
		}
		images[string(ref.UID)] = append(images[string(ref.UID)], rs.Spec.Template.Spec.Containers[0].Image)
	}
	for _, d := range ds {
		want := slices.Sorted(slices.Values(s.imagesOf[d.Namespace]))
		got := images[string(d.UID)]
		slices.Sort(got)
		if !slices.Equal(got, want) {
			s.t.Errorf("Deployment %s/%s has ReplicaSets of %v, want one each of %v", d.Namespace, d.Name, got, want)
		}
	}
}

// cacheReport is what one replica's /metrics says of its ring member.
type cacheReport struct {
	target   hashRanges
	serving  float64            // share of the hash space served
	assigned float64            // share of the hash space in target
	cached   map[string]float64 // by resource
}

func (s *shardedRun) report(ctx context.Context, r *shardReplica) (cacheReport, error) {
	families, err := scrape(ctx, r.metrics)
	if err != nil {
		return cacheReport{}, err
	}
	rep := cacheReport{cached: map[string]float64{}}
	var target hashRanges
	for _, m := range families["ctrlkit_shard_range_info"].GetMetric() {
		l := labelsOf(m)
		r, err := parseRange(l["start"], l["end"])
		if err != nil {
			return cacheReport{}, err
		}
		target = append(target, r)
	}
	rep.target = target
	if f := families["ctrlkit_shard_serving_fraction"]; f != nil && len(f.GetMetric()) == 1 {
		rep.serving = f.GetMetric()[0].GetGauge().GetValue()
	}
	if f := families["ctrlkit_shard_range_fraction"]; f != nil && len(f.GetMetric()) == 1 {
		rep.assigned = f.GetMetric()[0].GetGauge().GetValue()
	}
	for _, m := range families["ctrlkit_shard_cached_objects"].GetMetric() {
		l := labelsOf(m)
		if l["ring"] != shardRing {
			return cacheReport{}, fmt.Errorf("ctrlkit_shard_cached_objects of ring %q", l["ring"])
		}
		rep.cached[l["resource"]] = m.GetGauge().GetValue()
	}
	return rep, nil
}

// waitCaches waits until each replica's caches hold exactly the objects
// of the cluster (this run's and any other's) whose namespace hashes into
// its range: its store sizes, from ctrlkit_shard_cached_objects, against
// the API server's lists.
func (s *shardedRun) waitCaches(replicas []*shardReplica) {
	s.t.Helper()
	var reports []string
	testutil.Eventually(s.t, time.Minute, "each replica to cache exactly its range", func(ctx context.Context) (bool, error) {
		namespaces := map[string][]string{} // resource -> namespace of each object
		deps, err := s.client.AppsV1().Deployments(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, o := range deps.Items {
			namespaces["deployments.apps"] = append(namespaces["deployments.apps"], o.Namespace)
		}
		rss, err := s.client.AppsV1().ReplicaSets(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, o := range rss.Items {
			namespaces["replicasets.apps"] = append(namespaces["replicasets.apps"], o.Namespace)
		}
		pods, err := s.client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, o := range pods.Items {
			namespaces["pods"] = append(namespaces["pods"], o.Namespace)
		}
		reports = reports[:0]
		var assigned float64
		owners := map[string]int{} // the run's namespaces: how many targets hold each
		for _, r := range replicas {
			rep, err := s.report(ctx, r)
			if err != nil {
				return false, fmt.Errorf("%s: %w", r.name, err)
			}
			if rep.serving != rep.assigned || rep.assigned == 0 {
				return false, fmt.Errorf("%s serves %.3f of the hash space, assigned %.3f", r.name, rep.serving, rep.assigned)
			}
			assigned += rep.assigned
			for _, ns := range s.namespaces {
				if rep.target.Contains(sharding.KeyHash(ns, "")) {
					owners[ns]++
				}
			}
			for _, resource := range []string{"deployments.apps", "replicasets.apps", "pods"} {
				want := 0
				for _, ns := range namespaces[resource] {
					if rep.target.Contains(sharding.KeyHash(ns, "")) {
						want++
					}
				}
				got, ok := rep.cached[resource]
				if !ok || got != float64(want) {
					return false, fmt.Errorf("%s (range %s) caches %v %s, want %d of the cluster's %d", r.name, rep.target, got, resource, want, len(namespaces[resource]))
				}
				reports = append(reports, fmt.Sprintf("%s %s: %d of %d", r.name, resource, want, len(namespaces[resource])))
			}
		}
		if math.Abs(assigned-1) > 1e-9 {
			return false, fmt.Errorf("the replicas' targets hold %v of the hash space, want all of it", assigned)
		}
		for _, ns := range s.namespaces {
			if owners[ns] != 1 {
				return false, fmt.Errorf("namespace %s is in %d replicas' targets, want 1", ns, owners[ns])
			}
		}
		return true, nil
	})
	s.t.Logf("caches: %s", strings.Join(reports, "; "))
}

// checkNoHalfCacheErrors checks that no replica failed a reconcile on an
// object it could not find: a member that reconciled keys it gained before
// all its caches held them would (its Deployment cached, its ReplicaSets
// not yet).
func (s *shardedRun) checkNoHalfCacheErrors(replicas []*shardReplica) {
	s.t.Helper()
	for _, r := range replicas {
		n := 0
		for line := range strings.Lines(string(r.output())) {
			if strings.Contains(line, `"Reconciler error"`) && strings.Contains(line, "not found") {
				if n++; n <= 3 {
					s.t.Errorf("%s: %s", r.name, strings.TrimSpace(line))
				}
			}
		}
		if n > 3 {
			s.t.Errorf("%s: %d reconcile errors on objects not found in all", r.name, n)
		}
	}
}

// checkReleased checks that the replicas that shut down gracefully gave
// their Leases up (an empty holder), so that the others need not wait for
// them to expire.
func (s *shardedRun) checkReleased(replicas []*shardReplica) {
	s.t.Helper()
	for _, r := range replicas {
		l, err := s.client.CoordinationV1().Leases(s.leases).Get(s.t.Context(), shardRing+"-"+r.id, metav1.GetOptions{})
		if err != nil {
			s.t.Errorf("%s's Lease: %v", r.name, err)
			continue
		}
		if l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != "" {
			s.t.Errorf("%s's Lease is still held by %q after its shutdown", r.name, *l.Spec.HolderIdentity)
		}
	}
}

// checkNoOverlap reads every replica's reconciles from its log and checks
// that no key was ever reconciled on two replicas at once. It fails if
// the logs hold no reconcile, if a replica reconciled nothing, or if no
// key moved between replicas: then the check would prove nothing.
func (s *shardedRun) checkNoOverlap(replicas []*shardReplica) {
	s.t.Helper()
	var all []reconcileInterval
	byReplica := map[string]int{}
	for _, r := range replicas {
		if r.Running() {
			s.t.Fatalf("%s still runs: its log is not complete", r.name)
		}
		rs, err := parseReconciles(r.name, r.output(), r.ExitedAt())
		if err != nil {
			s.t.Fatalf("reading the reconciles of %s: %v", r.name, err)
		}
		byReplica[r.name] = len(rs)
		all = append(all, rs...)
	}
	s.t.Logf("reconciles in the replicas' logs: %v", byReplica)
	for name, n := range byReplica {
		if n == 0 {
			s.t.Fatalf("no reconcile in %s's log (want \"Reconciling\" and \"Reconciled\" lines at -v=5): the overlap check would pass vacuously", name)
		}
	}
	replicasOf := map[string]map[string]bool{}
	for _, r := range all {
		if replicasOf[r.key] == nil {
			replicasOf[r.key] = map[string]bool{}
		}
		replicasOf[r.key][r.replica] = true
	}
	moved := 0
	for _, rs := range replicasOf {
		if len(rs) > 1 {
			moved++
		}
	}
	s.t.Logf("%d reconciles of %d keys; %d keys reconciled on more than one replica", len(all), len(replicasOf), moved)
	if moved == 0 {
		s.t.Fatal("no key was reconciled on two replicas: no handover to check")
	}
	found := overlaps(all)
	for i, o := range found {
		if i == 10 {
			s.t.Errorf("... and %d more", len(found)-10)
			break
		}
		s.t.Errorf("two replicas reconciled one key at once:\n  %s\n  %s", o[0], o[1])
	}
}

// checkFiltering checks who filtered the replicas' lists: with the feature
// gate the API server did (no replica warns that it did not); without it
// every replica says it filters on the client side.
func (s *shardedRun) checkFiltering(replicas []*shardReplica, serverShards bool) {
	s.t.Helper()
	for _, r := range replicas {
		warned := strings.Contains(string(r.output()), "The API server did not honour the shard selector")
		if warned == serverShards {
			s.t.Errorf("%s: warned that the API server ignored its shard selector: %v; want %v (feature gate on: %v)", r.name, warned, !serverShards, serverShards)
		}
	}
}

// logTimeouts logs how many reconciles hit the sharded reconcile timeout
// on each replica (controller_runtime_reconcile_timeouts_total).
func (s *shardedRun) logTimeouts(replicas []*shardReplica) {
	s.t.Helper()
	var parts []string
	for _, r := range replicas {
		families, err := scrape(s.t.Context(), r.metrics)
		if err != nil {
			s.t.Errorf("%s: %v", r.name, err)
			continue
		}
		var n float64
		for _, m := range families["controller_runtime_reconcile_timeouts_total"].GetMetric() {
			n += m.GetCounter().GetValue()
		}
		parts = append(parts, fmt.Sprintf("%s: %v", r.name, n))
	}
	s.t.Logf("reconciles that hit the reconcile timeout: %s", strings.Join(parts, ", "))
}

// deleteDeployments deletes the run's Deployments, and through the
// garbage collector their ReplicaSets and Pods: the control plane runs no
// namespace controller, so deleting the namespaces leaves them behind, in
// the way of the tests that share it.
func (s *shardedRun) deleteDeployments() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, ns := range s.namespaces {
		err := s.client.AppsV1().Deployments(ns).DeleteCollection(ctx,
			metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)},
			metav1.ListOptions{LabelSelector: shardRunLabel + "=" + s.run})
		if err != nil {
			s.t.Errorf("delete the Deployments of %s: %v", ns, err)
		}
	}
}
