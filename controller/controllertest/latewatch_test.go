package controllertest_test

import (
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ctrlkit/ctrlkit/controller/controllertest"
)

func TestLateWatchDeliversEachEventLateInOrderAsACopy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		source := watch.NewFakeWithChanSize(2, false)
		w := controllertest.LateWatch(source, time.Second)
		defer w.Stop()
		sent := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", ResourceVersion: "1"}}
		source.Add(sent)
		source.Modify(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", ResourceVersion: "2"}})

		time.Sleep(time.Second - time.Millisecond)
		synctest.Wait()
		select {
		case e := <-w.ResultChan():
			t.Fatalf("event %v delivered before its delay", e.Type)
		default:
		}
		time.Sleep(time.Millisecond)
		for _, want := range []string{"1", "2"} {
			e := <-w.ResultChan()
			cm := e.Object.(*corev1.ConfigMap)
			if cm.ResourceVersion != want {
				t.Fatalf("delivered resourceVersion %s, want %s", cm.ResourceVersion, want)
			}
			if cm == sent {
				t.Fatal("delivered the sender's object, not a copy")
			}
		}
	})
}
