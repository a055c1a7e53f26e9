package deployment

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
)

func TestRevision(t *testing.T) {
	d := newDeployment("web", 1)
	tests := []struct {
		value   *string
		want    int64
		wantErr bool
	}{
		{value: nil, want: 0},
		{value: strp("7"), want: 7},
		{value: strp("9223372036854775807"), want: 9223372036854775807},
		{value: strp(""), wantErr: true},
		{value: strp("seven"), wantErr: true},
		{value: strp("9223372036854775808"), wantErr: true},
	}
	for _, tt := range tests {
		rs := newReplicaSet(d, "abc", 1, 0)
		if tt.value != nil {
			withRevision(rs, *tt.value)
		}
		got, err := Revision(rs)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("Revision(%s) = %d, %v; want %d, error %v", deref(tt.value), got, err, tt.want, tt.wantErr)
		}
	}
}

func TestMaxAndLastRevision(t *testing.T) {
	d := newDeployment("web", 1)
	rss := func(revisions ...string) []*appsv1.ReplicaSet {
		var out []*appsv1.ReplicaSet
		for i, r := range revisions {
			rs := newReplicaSet(d, string(rune('a'+i)), 1, time.Duration(i)*time.Minute)
			if r != "-" {
				withRevision(rs, r)
			}
			out = append(out, rs)
		}
		return out
	}
	tests := []struct {
		name     string
		rss      []*appsv1.ReplicaSet
		wantMax  int64
		wantLast int64
	}{
		{name: "none", rss: nil, wantMax: 0, wantLast: 0},
		{name: "one", rss: rss("4"), wantMax: 4, wantLast: 0},
		{name: "unordered", rss: rss("2", "5", "3"), wantMax: 5, wantLast: 3},
		{name: "tie for the highest: last is that one", rss: rss("5", "2", "5"), wantMax: 5, wantLast: 5},
		{name: "unparsable and missing skipped", rss: rss("bad", "3", "-", "1"), wantMax: 3, wantLast: 1},
		{name: "nil entries skipped", rss: append(rss("2", "6"), nil), wantMax: 6, wantLast: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := maxRevision(tt.rss); got != tt.wantMax {
				t.Errorf("maxRevision() = %d, want %d", got, tt.wantMax)
			}
			if got := lastRevision(tt.rss); got != tt.wantLast {
				t.Errorf("lastRevision() = %d, want %d", got, tt.wantLast)
			}
		})
	}
}

func TestSetDeploymentRevision(t *testing.T) {
	d := newDeployment("web", 1)
	if !setDeploymentRevision(d, "3") || d.Annotations[RevisionAnnotation] != "3" {
		t.Fatalf("first setDeploymentRevision: annotations %v", d.Annotations)
	}
	if setDeploymentRevision(d, "3") {
		t.Error("setting the same revision again reported a change")
	}
	if !setDeploymentRevision(d, "2") || d.Annotations[RevisionAnnotation] != "2" {
		t.Errorf("the Deployment's revision follows its new ReplicaSet, even downwards; got %v", d.Annotations)
	}
}

func TestRollbackTo(t *testing.T) {
	tests := []struct {
		value  *string
		want   int64
		wantOK bool
	}{
		{value: nil},
		{value: strp("")},
		{value: strp("latest")},
		{value: strp("0"), want: 0, wantOK: true},
		{value: strp("4"), want: 4, wantOK: true},
	}
	for _, tt := range tests {
		d := newDeployment("web", 1)
		if tt.value != nil {
			d.Annotations = map[string]string{appsv1.DeprecatedRollbackTo: *tt.value, "keep": "me"}
		}
		got, ok := getRollbackTo(d)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("getRollbackTo(%s) = %d, %v; want %d, %v", deref(tt.value), got, ok, tt.want, tt.wantOK)
		}
		clearRollbackTo(d)
		if _, still := d.Annotations[appsv1.DeprecatedRollbackTo]; still {
			t.Errorf("clearRollbackTo left the annotation: %v", d.Annotations)
		}
		if tt.value != nil && d.Annotations["keep"] != "me" {
			t.Errorf("clearRollbackTo removed other annotations: %v", d.Annotations)
		}
	}
}
