package typed

import "k8s.io/apimachinery/pkg/runtime"

// ApplyConfiguration is what [Client.Apply] and [Client.ApplyStatus] send:
// an apply configuration of T, as k8s.io/code-generator's
// applyconfiguration-gen writes for a type marked +genclient (a
// *WebAppApplyConfiguration for a WebApp). Its fields are pointers, so it
// carries only the fields the caller set: those, and no others, become
// owned by the field manager. It must have a name (GetName), and its
// namespace, if set, must be the client's.
//
// Apply and ApplyStatus are gentype's, the code of every generated
// clientset's Apply: the configuration is marshalled as it is and sent as
// an apply patch, fieldManager and force taken from metav1.ApplyOptions.
type ApplyConfiguration interface {
	runtime.ApplyConfiguration
	GetName() *string
}
