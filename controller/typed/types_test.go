package typed_test

import (
	"net/url"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/controller/typed"
)

// Widget is a custom resource's Go type as a user writes it: TypeMeta,
// ObjectMeta, spec and status, and a hand-written DeepCopyObject.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec,omitempty"`
	Status            WidgetStatus `json:"status,omitempty"`
}

type WidgetSpec struct {
	Color string `json:"color,omitempty"`
	Size  *int32 `json:"size,omitempty"`
}

type WidgetStatus struct {
	Ready bool `json:"ready,omitempty"`
}

func (w *Widget) DeepCopyObject() runtime.Object {
	if w == nil {
		return nil
	}
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if w.Spec.Size != nil {
		size := *w.Spec.Size
		out.Spec.Size = &size
	}
	return &out
}

var widgets = typed.Resource{Group: "example.ctrlkit.dev", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true}

func widget(ns, name, color string) *Widget {
	return &Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: WidgetSpec{Color: color}}
}

var typedConfig = rest.Config{Host: "http://127.0.0.1:1"}

func encodeQuery(q url.Values) string { return q.Encode() }

func typeOf(v any) reflect.Type { return reflect.TypeOf(v) }

// WidgetApplyConfiguration is Widget's apply configuration, written by
// hand in the shape applyconfiguration-gen gives a +genclient type: every
// field a pointer, so that only what the caller sets is sent.
type WidgetApplyConfiguration struct {
	metav1ac.TypeMetaApplyConfiguration    `json:",inline"`
	*metav1ac.ObjectMetaApplyConfiguration `json:"metadata,omitempty"`
	Spec                                   *WidgetSpecApplyConfiguration   `json:"spec,omitempty"`
	Status                                 *WidgetStatusApplyConfiguration `json:"status,omitempty"`
}

type WidgetSpecApplyConfiguration struct {
	Color *string `json:"color,omitempty"`
	Size  *int32  `json:"size,omitempty"`
}

type WidgetStatusApplyConfiguration struct {
	Ready *bool `json:"ready,omitempty"`
}

// applyWidget is the generated constructor's counterpart: name,
// namespace, apiVersion and kind.
func applyWidget(ns, name string) *WidgetApplyConfiguration {
	return &WidgetApplyConfiguration{
		TypeMetaApplyConfiguration:   *metav1ac.TypeMeta().WithAPIVersion("example.ctrlkit.dev/v1").WithKind("Widget"),
		ObjectMetaApplyConfiguration: metav1ac.ObjectMeta().WithName(name).WithNamespace(ns),
	}
}

func (WidgetApplyConfiguration) IsApplyConfiguration() {}

func (w *WidgetApplyConfiguration) GetName() *string {
	if w.ObjectMetaApplyConfiguration == nil {
		return nil
	}
	return w.Name
}
