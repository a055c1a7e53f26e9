package operatoruser

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/ctrlkit/ctrlkit/controller/typed"

	v1 "example.com/operatoruser/api/v1"
)

// The generated CRD defaults times to 1, and the greeter writes the status
// through the status subresource.
func TestGreeterGreets(t *testing.T) {
	ns := env.Namespace(t)
	mgr, err := newManager(env.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- mgr.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})

	client, err := typed.NewClient[*v1.Greeting](env.RESTConfig(), v1.Resource)
	if err != nil {
		t.Fatal(err)
	}
	created, err := client.Namespace(ns).Create(t.Context(), &v1.Greeting{
		ObjectMeta: metav1.ObjectMeta{Name: "hi"}, Spec: v1.GreetingSpec{Name: "world"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.Spec.Times != 1 {
		t.Errorf("times = %d after create, want the schema's default 1", created.Spec.Times)
	}
	var got *v1.Greeting
	err = wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err = client.Namespace(ns).Get(ctx, "hi", metav1.GetOptions{})
		return err == nil && got.Status.ObservedGeneration == got.Generation, err
	})
	if err != nil {
		t.Fatalf("waiting for the greeting: %v (last seen %+v)", err, got)
	}
	if want := "Hello, world! "; got.Status.Greeting != want {
		t.Errorf("status.greeting = %q, want %q", got.Status.Greeting, want)
	}
}

// The API server refuses what the markers forbid: a value out of bounds,
// and a wrong type deep inside a field of a built-in type
// (metav1.LabelSelector), whose schema controller-gen writes too.
func TestGeneratedSchemaValidates(t *testing.T) {
	ns := env.Namespace(t)
	client, err := dynamic.NewForConfig(env.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	for name, spec := range map[string]map[string]any{
		"no-name":        {"times": int64(1)},
		"too-many-times": {"name": "world", "times": int64(4)},
		"selector-type":  {"name": "world", "selector": map[string]any{"matchLabels": "app=web"}},
	} {
		g := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "example.com/v1", "kind": "Greeting",
			"metadata": map[string]any{"name": name}, "spec": spec,
		}}
		_, err := client.Resource(v1.Resource.GroupVersionResource()).Namespace(ns).Create(t.Context(), g, metav1.CreateOptions{})
		if !apierrors.IsInvalid(err) {
			t.Errorf("create %s: %v, want Invalid", name, err)
		} else if !strings.Contains(err.Error(), "spec.") {
			t.Errorf("create %s: %v, want the error to name the spec field", name, err)
		}
	}
}
