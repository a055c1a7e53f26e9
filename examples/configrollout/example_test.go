package configrollout_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/ctrlkit/ctrlkit/examples/configrollout"
)

// RefsOf lists what a pod template reads; Hash digests what was read.
func ExampleRefsOf() {
	spec := &corev1.PodSpec{
		Containers: []corev1.Container{{
			Name: "app",
			EnvFrom: []corev1.EnvFromSource{{
				ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "app-config"}},
			}},
		}},
		Volumes: []corev1.Volume{{
			Name:         "tls",
			VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "app-tls"}},
		}},
	}
	for _, ref := range configrollout.RefsOf(spec) {
		fmt.Println(ref)
	}
	// Output:
	// configmap/app-config
	// secret/app-tls
}

// Two reads of the same data hash alike, whatever their order; any change
// in a value gives another hash, and so a rollout.
func ExampleHash() {
	config := configrollout.Content{
		Ref:   configrollout.Ref{Kind: configrollout.KindConfigMap, Name: "app-config"},
		Found: true,
		Data:  map[string][]byte{"level": []byte("info")},
	}
	tls := configrollout.Content{
		Ref:   configrollout.Ref{Kind: configrollout.KindSecret, Name: "app-tls"},
		Found: true,
		Data:  map[string][]byte{"tls.crt": []byte("...")},
	}
	a := configrollout.Hash([]configrollout.Content{config, tls})
	b := configrollout.Hash([]configrollout.Content{tls, config})
	config.Data = map[string][]byte{"level": []byte("debug")}
	c := configrollout.Hash([]configrollout.Content{config, tls})
	fmt.Println(a == b, a == c)
	// Output: true false
}
