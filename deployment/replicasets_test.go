package deployment

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

func TestEqualIgnoreHash(t *testing.T) {
	base := func() *corev1.PodTemplateSpec { return newDeployment("web", 1).Spec.Template.DeepCopy() }
	with := func(f func(*corev1.PodTemplateSpec)) *corev1.PodTemplateSpec {
		tpl := base()
		f(tpl)
		return tpl
	}
	hash := func(h string) func(*corev1.PodTemplateSpec) {
		return func(tpl *corev1.PodTemplateSpec) { tpl.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = h }
	}
	cpu := func(q string) func(*corev1.PodTemplateSpec) {
		return func(tpl *corev1.PodTemplateSpec) {
			tpl.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(q)}
		}
	}
	tests := []struct {
		name string
		a, b *corev1.PodTemplateSpec
		want bool
	}{
		{name: "identical", a: base(), b: base(), want: true},
		{name: "different hash labels", a: with(hash("aaa")), b: with(hash("bbb")), want: true},
		{name: "hash label on one side only", a: with(hash("aaa")), b: base(), want: true},
		{name: "only label is the hash vs no labels", a: with(func(tpl *corev1.PodTemplateSpec) {
			tpl.Labels = map[string]string{appsv1.DefaultDeploymentUniqueLabelKey: "aaa"}
		}), b: with(func(tpl *corev1.PodTemplateSpec) { tpl.Labels = nil }), want: true},
		{name: "other label differs", a: with(hash("aaa")), b: with(func(tpl *corev1.PodTemplateSpec) {
			tpl.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = "aaa"
			tpl.Labels["track"] = "canary"
		}), want: false},
		{name: "as many labels, another key", a: with(func(tpl *corev1.PodTemplateSpec) {
			tpl.Labels = map[string]string{appsv1.DefaultDeploymentUniqueLabelKey: "aaa", "track": "canary"}
		}), b: with(func(tpl *corev1.PodTemplateSpec) { tpl.Labels = map[string]string{"tier": "canary"} }), want: false},
		{name: "label value differs", a: with(func(tpl *corev1.PodTemplateSpec) { tpl.Labels["app"] = "other" }), b: base(), want: false},
		{name: "image differs", a: base(), b: with(func(tpl *corev1.PodTemplateSpec) { tpl.Spec.Containers[0].Image = "other" }), want: false},
		{name: "annotation differs", a: base(), b: with(func(tpl *corev1.PodTemplateSpec) { tpl.Annotations = map[string]string{"a": "b"} }), want: false},
		{name: "semantically equal quantities", a: with(cpu("1")), b: with(cpu("1000m")), want: true},
		{name: "different quantities", a: with(cpu("1")), b: with(cpu("999m")), want: false},
		{name: "empty and nil env are equal", a: with(func(tpl *corev1.PodTemplateSpec) { tpl.Spec.Containers[0].Env = []corev1.EnvVar{} }), b: base(), want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			aBefore, bBefore := tt.a.DeepCopy(), tt.b.DeepCopy()
			if got := equalIgnoreHash(tt.a, tt.b); got != tt.want {
				t.Errorf("equalIgnoreHash() = %v, want %v", got, tt.want)
			}
			if got := equalIgnoreHash(tt.b, tt.a); got != tt.want {
				t.Errorf("equalIgnoreHash() reversed = %v, want %v", got, tt.want)
			}
			if !cmp.Equal(aBefore, tt.a) || !cmp.Equal(bBefore, tt.b) {
				t.Error("equalIgnoreHash modified its arguments")
			}
		})
	}
}

func TestFindNewReplicaSet(t *testing.T) {
	d := newDeployment("web", 3)
	oldD := withTemplateImage(newDeployment("web", 3), "v0")
	sameTimeA := newReplicaSet(d, "aaa", 1, time.Hour)
	sameTimeB := newReplicaSet(d, "bbb", 1, time.Hour)
	older := newReplicaSet(d, "zzz", 1, time.Minute)
	old := newReplicaSet(oldD, "old", 3, 0)
	deleting := newReplicaSet(d, "del", 1, time.Second)
	deleting.DeletionTimestamp = ptr.To(metav1.NewTime(testEpoch.Add(time.Hour)))

	tests := []struct {
		name string
		rss  []*appsv1.ReplicaSet
		want *appsv1.ReplicaSet
	}{
		{name: "none", rss: nil, want: nil},
		{name: "only old templates", rss: []*appsv1.ReplicaSet{old}, want: nil},
		{name: "the matching one", rss: []*appsv1.ReplicaSet{old, sameTimeB}, want: sameTimeB},
		{name: "oldest of several matches", rss: []*appsv1.ReplicaSet{sameTimeA, old, older}, want: older},
		{name: "same creation time: name decides", rss: []*appsv1.ReplicaSet{sameTimeB, sameTimeA}, want: sameTimeA},
		{name: "one being deleted can be chosen", rss: []*appsv1.ReplicaSet{sameTimeA, deleting, older}, want: deleting},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := findNewReplicaSet(d, tt.rss); got != tt.want {
				t.Errorf("findNewReplicaSet() = %v, want %v", nameOf(got), nameOf(tt.want))
			}
		})
	}
}

func TestFindOldReplicaSets(t *testing.T) {
	d := newDeployment("web", 3)
	newRS := newReplicaSet(d, "new", 3, time.Hour)
	oldD := withTemplateImage(newDeployment("web", 3), "v1")
	oldWithPods := newReplicaSet(oldD, "old1", 2, time.Minute)
	oldEmpty := newReplicaSet(withTemplateImage(newDeployment("web", 3), "v0"), "old0", 0, 0)

	tests := []struct {
		name         string
		rss          []*appsv1.ReplicaSet
		wantWithPods []string
		wantAll      []string
	}{
		{name: "nothing", rss: nil},
		{name: "only the new one", rss: []*appsv1.ReplicaSet{newRS}},
		{name: "old ones sorted by creation, empty ones only in all",
			rss:          []*appsv1.ReplicaSet{newRS, oldWithPods, oldEmpty},
			wantWithPods: []string{"web-old1"}, wantAll: []string{"web-old0", "web-old1"}},
		{name: "no new one: every ReplicaSet is old",
			rss:          []*appsv1.ReplicaSet{oldWithPods, oldEmpty},
			wantWithPods: []string{"web-old1"}, wantAll: []string{"web-old0", "web-old1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			withPods, all := findOldReplicaSets(d, tt.rss)
			if diff := cmp.Diff(tt.wantWithPods, rsNames(withPods)); diff != "" {
				t.Errorf("withPods (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantAll, rsNames(all)); diff != "" {
				t.Errorf("all (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReplicaCounts(t *testing.T) {
	d := newDeployment("web", 3)
	a := withStatus(newReplicaSet(d, "a", 2, 0), 3, 2, 1)
	b := withStatus(newReplicaSet(d, "b", 5, 0), 4, 4, 4)
	rss := []*appsv1.ReplicaSet{a, nil, b}
	if got := replicaCount(rss); got != 7 {
		t.Errorf("replicaCount() = %d, want 7", got)
	}
	if got := actualReplicaCount(rss); got != 7 {
		t.Errorf("actualReplicaCount() = %d, want 7", got)
	}
	if got := readyReplicaCount(rss); got != 6 {
		t.Errorf("readyReplicaCount() = %d, want 6", got)
	}
	if got := availableReplicaCount(rss); got != 5 {
		t.Errorf("availableReplicaCount() = %d, want 5", got)
	}
	if got := replicaCount(nil); got != 0 {
		t.Errorf("replicaCount(nil) = %d, want 0", got)
	}
}

func TestFilterActiveReplicaSets(t *testing.T) {
	d := newDeployment("web", 3)
	active := newReplicaSet(d, "a", 1, 0)
	idle := newReplicaSet(d, "b", 0, 0)
	got := filterActiveReplicaSets([]*appsv1.ReplicaSet{nil, idle, active, nil})
	if diff := cmp.Diff([]string{"web-a"}, rsNames(got)); diff != "" {
		t.Errorf("filterActiveReplicaSets (-want +got):\n%s", diff)
	}
}

func TestFindActiveOrLatest(t *testing.T) {
	d := newDeployment("web", 3)
	rs := func(hash string, replicas int32, age time.Duration) *appsv1.ReplicaSet {
		return newReplicaSet(d, hash, replicas, age)
	}
	tests := []struct {
		name   string
		newRS  *appsv1.ReplicaSet
		oldRSs []*appsv1.ReplicaSet
		want   string // "" for nil
	}{
		{name: "nothing at all", want: ""},
		{name: "none active: the new one", newRS: rs("new", 0, 3*time.Hour), oldRSs: []*appsv1.ReplicaSet{rs("o1", 0, time.Hour)}, want: "web-new"},
		{name: "none active, no new one: newest old", oldRSs: []*appsv1.ReplicaSet{rs("o1", 0, time.Hour), rs("o2", 0, 2*time.Hour), rs("o0", 0, 0)}, want: "web-o2"},
		{name: "only the new one active", newRS: rs("new", 3, 3*time.Hour), oldRSs: []*appsv1.ReplicaSet{rs("o1", 0, time.Hour)}, want: "web-new"},
		{name: "only an old one active", newRS: rs("new", 0, 3*time.Hour), oldRSs: []*appsv1.ReplicaSet{rs("o1", 2, time.Hour), rs("o2", 0, 2*time.Hour)}, want: "web-o1"},
		{name: "several active: proportional scaling instead", newRS: rs("new", 1, 3*time.Hour), oldRSs: []*appsv1.ReplicaSet{rs("o1", 2, time.Hour)}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := nameOf(findActiveOrLatest(tt.newRS, tt.oldRSs)); got != tt.want && !(tt.want == "" && got == "<nil>") {
				t.Errorf("findActiveOrLatest() = %s, want %q", got, tt.want)
			}
		})
	}
}

func TestIsSaturated(t *testing.T) {
	d := newDeployment("web", 3)
	tests := []struct {
		name        string
		spec, avail int32
		desired     *string
		want        bool
	}{
		{name: "saturated", spec: 3, avail: 3, desired: strp("3"), want: true},
		{name: "desired annotation accepted as Atoi does", spec: 3, avail: 3, desired: strp("+3"), want: true},
		{name: "not all available", spec: 3, avail: 2, desired: strp("3"), want: false},
		{name: "wrong size", spec: 4, avail: 3, desired: strp("3"), want: false},
		{name: "stale desired annotation", spec: 3, avail: 3, desired: strp("2"), want: false},
		{name: "no desired annotation", spec: 3, avail: 3, desired: nil, want: false},
		{name: "garbage desired annotation", spec: 3, avail: 3, desired: strp("three"), want: false},
		// Upstream cuts the value to an int32: 2^32+3 counts as 3.
		{name: "desired annotation beyond int32 wraps", spec: 3, avail: 3, desired: strp("4294967299"), want: true},
		{name: "desired annotation wrapping to another value", spec: 3, avail: 3, desired: strp("4294967300"), want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := withStatus(newReplicaSet(d, "abc", tt.spec, 0), tt.spec, tt.avail, tt.avail)
			if tt.desired != nil {
				rs.Annotations = map[string]string{DesiredReplicasAnnotation: *tt.desired}
			}
			if got := isSaturated(d, rs); got != tt.want {
				t.Errorf("isSaturated() = %v, want %v", got, tt.want)
			}
		})
	}
	if isSaturated(d, nil) {
		t.Error("isSaturated(nil) = true")
	}
}

func TestNewRSNewReplicas(t *testing.T) {
	tests := []struct {
		name        string
		d           *appsv1.Deployment
		newSize     int32
		otherSize   int32
		want        int32
		wantErrText string
	}{
		{name: "at the surge limit: unchanged", d: withRolling(newDeployment("web", 1), intOrStr(1), intOrStr(1)), newSize: 5, otherSize: 5, want: 5},
		{name: "room up to replicas", d: withRolling(newDeployment("web", 6), intOrStr(10), intOrStr(1)), newSize: 2, otherSize: 5, want: 6},
		{name: "limited by the surge", d: withRolling(newDeployment("web", 10), intOrStr(2), intOrStr(1)), newSize: 1, otherSize: 9, want: 3},
		{name: "surge percentage rounds up", d: withRolling(newDeployment("web", 10), intOrStr("15%"), intOrStr(0)), newSize: 0, otherSize: 10, want: 2},
		{name: "over the limit: never shrinks", d: withRolling(newDeployment("web", 3), intOrStr(0), intOrStr(1)), newSize: 2, otherSize: 3, want: 2},
		{name: "recreate: replicas at once", d: withRecreate(newDeployment("web", 3)), newSize: 1, otherSize: 5, want: 3},
		{name: "nil maxSurge: upstream's error", d: withRolling(newDeployment("web", 3), nil, intOrStr(1)), newSize: 1, otherSize: 3, wantErrText: "nil value for IntOrString"},
		{name: "invalid maxSurge", d: withRolling(newDeployment("web", 3), intOrStr("lots"), intOrStr(1)), newSize: 1, otherSize: 3, wantErrText: "string is not a percentage"},
		{name: "unknown strategy", d: func() *appsv1.Deployment {
			d := newDeployment("web", 3)
			d.Spec.Strategy.Type = "BlueGreen"
			return d
		}(), wantErrText: "deployment type BlueGreen isn't supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			newRS := newReplicaSet(tt.d, "new", tt.newSize, time.Hour)
			other := newReplicaSet(withTemplateImage(newDeployment("web", 1), "v0"), "old", tt.otherSize, 0)
			got, err := newRSNewReplicas(tt.d, []*appsv1.ReplicaSet{other, newRS}, newRS)
			if tt.wantErrText != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErrText) {
					t.Fatalf("newRSNewReplicas() error = %v, want %q", err, tt.wantErrText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("newRSNewReplicas() = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestOldPodsRunning(t *testing.T) {
	d := newDeployment("web", 3)
	newRS := newReplicaSet(d, "new", 3, time.Hour)
	oldRS := newReplicaSet(withTemplateImage(newDeployment("web", 3), "v0"), "old", 0, 0)
	podsOf := func(rs *appsv1.ReplicaSet, phases ...corev1.PodPhase) []*corev1.Pod {
		var pods []*corev1.Pod
		for i, p := range phases {
			pods = append(pods, newPod(rs, rs.Name+"-"+string(rune('a'+i)), p))
		}
		return pods
	}
	tests := []struct {
		name      string
		oldStatus int32
		podMap    map[types.UID][]*corev1.Pod
		want      bool
	}{
		{name: "no pods at all", podMap: map[types.UID][]*corev1.Pod{oldRS.UID: nil, newRS.UID: nil}, want: false},
		{name: "old ReplicaSet still reports pods", oldStatus: 1, podMap: map[types.UID][]*corev1.Pod{}, want: true},
		{name: "only new pods running", podMap: map[types.UID][]*corev1.Pod{newRS.UID: podsOf(newRS, corev1.PodRunning, corev1.PodPending)}, want: false},
		{name: "old pod running", podMap: map[types.UID][]*corev1.Pod{oldRS.UID: podsOf(oldRS, corev1.PodRunning)}, want: true},
		{name: "old pod pending", podMap: map[types.UID][]*corev1.Pod{oldRS.UID: podsOf(oldRS, corev1.PodPending)}, want: true},
		{name: "old pod unknown counts as running", podMap: map[types.UID][]*corev1.Pod{oldRS.UID: podsOf(oldRS, corev1.PodUnknown)}, want: true},
		{name: "old pod with no phase yet", podMap: map[types.UID][]*corev1.Pod{oldRS.UID: podsOf(oldRS, "")}, want: true},
		{name: "old pods finished", podMap: map[types.UID][]*corev1.Pod{oldRS.UID: podsOf(oldRS, corev1.PodFailed, corev1.PodSucceeded)}, want: false},
		{name: "finished then running", podMap: map[types.UID][]*corev1.Pod{oldRS.UID: podsOf(oldRS, corev1.PodSucceeded, corev1.PodRunning)}, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			oldRS.Status.Replicas = tt.oldStatus
			if got := oldPodsRunning(newRS, []*appsv1.ReplicaSet{oldRS}, tt.podMap); got != tt.want {
				t.Errorf("oldPodsRunning() = %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("without a new ReplicaSet every pod is old", func(t *testing.T) {
		oldRS.Status.Replicas = 0
		if !oldPodsRunning(nil, nil, map[types.UID][]*corev1.Pod{newRS.UID: podsOf(newRS, corev1.PodRunning)}) {
			t.Error("oldPodsRunning(nil newRS) = false with a running pod")
		}
	})
}

func TestSorting(t *testing.T) {
	d := newDeployment("web", 3)
	rs := func(hash string, replicas int32, age time.Duration, revision string) *appsv1.ReplicaSet {
		r := newReplicaSet(d, hash, replicas, age)
		if revision != "" {
			withRevision(r, revision)
		}
		return r
	}
	a := rs("a", 2, time.Hour, "3")
	b := rs("b", 2, time.Hour, "1")   // same time and size as a: name decides
	c := rs("c", 5, 0, "2")           // oldest, largest
	e := rs("e", 1, 2*time.Hour, "")  // newest, smallest, no revision (0)
	f := rs("f", 2, 3*time.Hour, "x") // unparsable revision: creation order against anyone
	tests := []struct {
		name string
		sort func([]*appsv1.ReplicaSet)
		in   []*appsv1.ReplicaSet
		want []string
	}{
		{name: "by creation", sort: sortByCreation, in: []*appsv1.ReplicaSet{e, b, c, a}, want: []string{"web-c", "web-a", "web-b", "web-e"}},
		{name: "newest first", sort: sortNewestFirst, in: []*appsv1.ReplicaSet{c, b, e, a}, want: []string{"web-e", "web-b", "web-a", "web-c"}},
		{name: "by size, older first", sort: sortBySizeOlderFirst, in: []*appsv1.ReplicaSet{e, b, f, a, c}, want: []string{"web-c", "web-a", "web-b", "web-f", "web-e"}},
		{name: "by size, newer first", sort: sortBySizeNewerFirst, in: []*appsv1.ReplicaSet{e, a, c, b, f}, want: []string{"web-c", "web-f", "web-b", "web-a", "web-e"}},
		{name: "by revision", sort: sortByRevision, in: []*appsv1.ReplicaSet{a, c, e, b}, want: []string{"web-e", "web-b", "web-c", "web-a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]*appsv1.ReplicaSet(nil), tt.in...)
			tt.sort(in)
			if diff := cmp.Diff(tt.want, rsNames(in)); diff != "" {
				t.Errorf("order (-want +got):\n%s", diff)
			}
		})
	}
}

func rsNames(rss []*appsv1.ReplicaSet) []string {
	var out []string
	for _, rs := range rss {
		out = append(out, nameOf(rs))
	}
	return out
}

func nameOf(rs *appsv1.ReplicaSet) string {
	if rs == nil {
		return "<nil>"
	}
	return rs.Name
}
