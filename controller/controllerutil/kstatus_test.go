package controllerutil_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/controller/controllerutil"
)

// cond is the part of a condition the kstatus helpers decide.
type cond struct {
	Type       string
	Status     metav1.ConditionStatus
	Reason     string
	Generation int64
}

func conds(cs []metav1.Condition) []cond {
	var out []cond
	for _, c := range cs {
		out = append(out, cond{c.Type, c.Status, c.Reason, c.ObservedGeneration})
	}
	return out
}

func TestKstatusMarks(t *testing.T) {
	obj := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Generation: 4}}
	var cs []metav1.Condition
	byType := cmpopts.SortSlices(func(a, b cond) bool { return a.Type < b.Type })

	steps := []struct {
		name        string
		mark        func(*[]metav1.Condition) bool
		want        []cond
		wantChanged bool
	}{
		{"reconciling", func(c *[]metav1.Condition) bool {
			return controllerutil.MarkReconciling(obj, c, "RollingOut", "rolling out")
		}, []cond{{"Reconciling", "True", "RollingOut", 4}, {"Ready", "False", "RollingOut", 4}}, true},
		{"reconciling again", func(c *[]metav1.Condition) bool {
			return controllerutil.MarkReconciling(obj, c, "RollingOut", "rolling out")
		}, []cond{{"Reconciling", "True", "RollingOut", 4}, {"Ready", "False", "RollingOut", 4}}, false},
		{"stalled clears reconciling", func(c *[]metav1.Condition) bool {
			return controllerutil.MarkStalled(obj, c, "DeadlineExceeded", "no progress")
		}, []cond{{"Stalled", "True", "DeadlineExceeded", 4}, {"Ready", "False", "DeadlineExceeded", 4}}, true},
		{"ready clears stalled", func(c *[]metav1.Condition) bool {
			return controllerutil.MarkReady(obj, c, "Complete", "done")
		}, []cond{{"Ready", "True", "Complete", 4}}, true},
		{"ready again", func(c *[]metav1.Condition) bool {
			return controllerutil.MarkReady(obj, c, "Complete", "done")
		}, []cond{{"Ready", "True", "Complete", 4}}, false},
	}
	for _, s := range steps {
		changed := s.mark(&cs)
		if changed != s.wantChanged {
			t.Errorf("%s: changed = %v, want %v", s.name, changed, s.wantChanged)
		}
		if diff := cmp.Diff(s.want, conds(cs), byType); diff != "" {
			t.Errorf("%s: conditions (-want +got):\n%s", s.name, diff)
		}
	}

	// A new spec: the same Ready is stamped with the new generation, which
	// is a change to write.
	obj.Generation = 5
	if !controllerutil.MarkReady(obj, &cs, "Complete", "done") {
		t.Error("MarkReady at a new generation reported no change")
	}
	if !controllerutil.IsConditionCurrent(obj, cs, controllerutil.ConditionReady, metav1.ConditionTrue) {
		t.Errorf("Ready not current at generation 5: %+v", cs)
	}
}

// Ready keeps its lastTransitionTime while its status stays the same, as
// meta.SetStatusCondition does; it changes when the status flips.
func TestKstatusTransitionTime(t *testing.T) {
	obj := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Generation: 1}}
	cs := []metav1.Condition{{Type: controllerutil.ConditionReady, Status: metav1.ConditionFalse, Reason: "Old",
		LastTransitionTime: metav1.Unix(100, 0)}}
	controllerutil.MarkReconciling(obj, &cs, "RollingOut", "")
	if got := cs[0].LastTransitionTime; !got.Equal(&metav1.Time{Time: metav1.Unix(100, 0).Time}) {
		t.Errorf("Ready False→False moved lastTransitionTime to %s", got)
	}
	controllerutil.MarkReady(obj, &cs, "Complete", "")
	if got := cs[0].LastTransitionTime; got.Equal(&metav1.Time{Time: metav1.Unix(100, 0).Time}) {
		t.Error("Ready False→True kept the old lastTransitionTime")
	}
}
