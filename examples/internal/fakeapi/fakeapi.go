package fakeapi

import (
	"fmt"
	"reflect"
	"strconv"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// Install installs reactors on client so that it behaves as an API server
// in these ways:
//
//   - watchers receive their own copies of objects, as if decoded from the
//     wire; the fake otherwise hands them the object it stores, and an
//     informer transform (handler.StripManagedFields) that edits it in
//     place races with every later read;
//   - every create and update stores a new metadata.resourceVersion;
//   - an update whose object's resourceVersion differs from the stored
//     one fails with a Conflict (objects seeded into the fake have none
//     until their first write, and then accept any writer once);
//   - an update of the main resource keeps the stored status, and bumps
//     metadata.generation when the spec changed; an update of the status
//     subresource keeps the stored spec and labels.
//
// Patches and deletes are left to the fake as they are.
func Install(client *fake.Clientset) {
	var version atomic.Int64
	version.Store(1000)
	next := func() string { return strconv.FormatInt(version.Add(1), 10) }
	tracker := client.Tracker()

	client.PrependReactor("create", "*", func(action k8stesting.Action) (bool, runtime.Object, error) {
		create := action.(k8stesting.CreateAction)
		if create.GetSubresource() != "" {
			return false, nil, nil
		}
		obj := create.GetObject().DeepCopyObject()
		m, err := meta.Accessor(obj)
		if err != nil {
			return false, nil, nil
		}
		m.SetResourceVersion(next())
		if m.GetGeneration() == 0 && hasField(obj, "Spec") {
			m.SetGeneration(1)
		}
		if err := tracker.Create(action.GetResource(), obj, action.GetNamespace()); err != nil {
			return true, nil, err
		}
		return true, obj.DeepCopyObject(), nil
	})

	client.PrependReactor("update", "*", func(action k8stesting.Action) (bool, runtime.Object, error) {
		update := action.(k8stesting.UpdateAction)
		sub := update.GetSubresource()
		if sub != "" && sub != "status" {
			return false, nil, nil
		}
		obj := update.GetObject().DeepCopyObject()
		m, err := meta.Accessor(obj)
		if err != nil {
			return false, nil, nil
		}
		gvr, ns := action.GetResource(), action.GetNamespace()
		stored, err := tracker.Get(gvr, ns, m.GetName(), metav1.GetOptions{})
		if err != nil {
			return true, nil, err
		}
		storedMeta, _ := meta.Accessor(stored)
		if rv := storedMeta.GetResourceVersion(); rv != "" && m.GetResourceVersion() != rv {
			return true, nil, apierrors.NewConflict(gvr.GroupResource(), m.GetName(),
				fmt.Errorf("the object has been modified (resourceVersion %q, stored %q); please apply your changes to the latest version and try again", m.GetResourceVersion(), rv))
		}
		if sub == "status" {
			copyField(obj, stored, "Spec")
			m.SetLabels(storedMeta.GetLabels())
			m.SetGeneration(storedMeta.GetGeneration())
		} else {
			copyField(obj, stored, "Status")
			generation := storedMeta.GetGeneration()
			if !fieldsEqual(obj, stored, "Spec") {
				generation++
			}
			m.SetGeneration(generation)
		}
		m.SetResourceVersion(next())
		if err := tracker.Update(gvr, obj, ns); err != nil {
			return true, nil, err
		}
		return true, obj.DeepCopyObject(), nil
	})

	client.PrependWatchReactor("*", func(action k8stesting.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if w, ok := action.(k8stesting.WatchActionImpl); ok {
			opts = w.ListOptions
		}
		w, err := tracker.Watch(action.GetResource(), action.GetNamespace(), opts)
		if err != nil {
			return false, nil, err
		}
		return true, watch.Filter(w, func(e watch.Event) (watch.Event, bool) {
			if e.Object != nil {
				e.Object = e.Object.DeepCopyObject()
			}
			return e, true
		}), nil
	})
}

// field returns the struct field name of a pointer-to-struct object, or an
// invalid Value.
func field(obj runtime.Object, name string) reflect.Value {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}
	}
	return v.Elem().FieldByName(name)
}

func hasField(obj runtime.Object, name string) bool { return field(obj, name).IsValid() }

// copyField sets dst's field to a copy of src's (same type); objects
// without the field are left alone.
func copyField(dst, src runtime.Object, name string) {
	d, s := field(dst, name), field(src.DeepCopyObject(), name)
	if d.IsValid() && s.IsValid() && d.Type() == s.Type() && d.CanSet() {
		d.Set(s)
	}
}

func fieldsEqual(a, b runtime.Object, name string) bool {
	fa, fb := field(a, name), field(b, name)
	if !fa.IsValid() || !fb.IsValid() {
		return true
	}
	return equality.Semantic.DeepEqual(fa.Interface(), fb.Interface())
}
