package configrollout

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// Kind is the kind of configuration object a pod can mount.
type Kind string

// The configuration kinds the controller follows.
const (
	KindConfigMap Kind = "ConfigMap"
	KindSecret    Kind = "Secret"
)

// Ref names one ConfigMap or Secret that a pod template uses, in the pod's
// own namespace (pods cannot reference another namespace's configuration).
type Ref struct {
	// Kind is KindConfigMap or KindSecret.
	Kind Kind
	// Name is the object's name.
	Name string
	// Optional is true only when every use of the object is optional: a
	// single required use means the pods cannot start without it.
	Optional bool
}

// String returns "configmap/name" or "secret/name", the spelling kubectl uses.
func (r Ref) String() string {
	switch r.Kind {
	case KindConfigMap:
		return "configmap/" + r.Name
	case KindSecret:
		return "secret/" + r.Name
	default:
		return string(r.Kind) + "/" + r.Name
	}
}

// RefsOf returns the ConfigMaps and Secrets a pod spec reads, through
// volumes (plain and projected), envFrom and env valueFrom, in every
// container, init container and ephemeral container. The result is sorted
// by kind then name, with one entry per object.
//
// Image pull secrets are left out: they do not reach the running container,
// so a change to them needs no restart.
func RefsOf(spec *corev1.PodSpec) []Ref {
	if spec == nil {
		return nil
	}
	c := refCollector{}
	for i := range spec.Volumes {
		c.volume(&spec.Volumes[i])
	}
	for i := range spec.InitContainers {
		c.container(spec.InitContainers[i].EnvFrom, spec.InitContainers[i].Env)
	}
	for i := range spec.Containers {
		c.container(spec.Containers[i].EnvFrom, spec.Containers[i].Env)
	}
	for i := range spec.EphemeralContainers {
		c.container(spec.EphemeralContainers[i].EnvFrom, spec.EphemeralContainers[i].Env)
	}
	return c.sorted()
}

// refCollector merges repeated references to one object: the object is
// optional only if every reference to it is.
type refCollector map[Ref]bool // key has Optional=false; value: all uses optional

func (c refCollector) add(kind Kind, name string, optional *bool) {
	if name == "" {
		return
	}
	k := Ref{Kind: kind, Name: name}
	opt := optional != nil && *optional
	if prev, seen := c[k]; seen {
		c[k] = prev && opt
		return
	}
	c[k] = opt
}

func (c refCollector) volume(v *corev1.Volume) {
	switch {
	case v.ConfigMap != nil:
		c.add(KindConfigMap, v.ConfigMap.Name, v.ConfigMap.Optional)
	case v.Secret != nil:
		c.add(KindSecret, v.Secret.SecretName, v.Secret.Optional)
	case v.Projected != nil:
		for _, s := range v.Projected.Sources {
			if s.ConfigMap != nil {
				c.add(KindConfigMap, s.ConfigMap.Name, s.ConfigMap.Optional)
			}
			if s.Secret != nil {
				c.add(KindSecret, s.Secret.Name, s.Secret.Optional)
			}
		}
	}
}

func (c refCollector) container(envFrom []corev1.EnvFromSource, env []corev1.EnvVar) {
	for _, e := range envFrom {
		if e.ConfigMapRef != nil {
			c.add(KindConfigMap, e.ConfigMapRef.Name, e.ConfigMapRef.Optional)
		}
		if e.SecretRef != nil {
			c.add(KindSecret, e.SecretRef.Name, e.SecretRef.Optional)
		}
	}
	for _, e := range env {
		if e.ValueFrom == nil {
			continue
		}
		if r := e.ValueFrom.ConfigMapKeyRef; r != nil {
			c.add(KindConfigMap, r.Name, r.Optional)
		}
		if r := e.ValueFrom.SecretKeyRef; r != nil {
			c.add(KindSecret, r.Name, r.Optional)
		}
	}
}

func (c refCollector) sorted() []Ref {
	if len(c) == 0 {
		return nil
	}
	refs := make([]Ref, 0, len(c))
	for k, optional := range c {
		k.Optional = optional
		refs = append(refs, k)
	}
	slices.SortFunc(refs, compareRefs)
	return refs
}

// compareRefs orders references by kind, then name.
func compareRefs(a, b Ref) int {
	return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name))
}
