package binaries

import (
	"path/filepath"
	"strings"

	"github.com/ctrlkit/ctrlkit/controller/envtest/binaries/internal/gobuild"
)

// Set is a set of control plane programs ready to run.
type Set struct {
	// Dir holds the programs and the kwok stages.
	Dir string
	// Versions maps each pinned module (k8s.io/kubernetes, go.etcd.io/etcd/server/v3,
	// sigs.k8s.io/kwok) whose programs are in the set to their version.
	Versions map[string]string
	// Paths maps a program's name to its path where it is not in Dir: a
	// program taken from an assets directory (Options.BinaryAssetsDirectory).
	Paths map[string]string
	// Stages, when set, is the kwok stage folder in place of Dir/stages.
	Stages string
}

// Path returns the path of one program: "etcd", "kube-apiserver",
// "kube-controller-manager", "kube-scheduler", "kubectl" or "kwok".
func (b *Set) Path(name string) string {
	if p, ok := b.Paths[name]; ok {
		return p
	}
	return filepath.Join(b.Dir, gobuild.ExeName(name))
}

// StagesDir holds the kwok stage files.
func (b *Set) StagesDir() string {
	if b.Stages != "" {
		return b.Stages
	}
	return filepath.Join(b.Dir, "stages")
}

// KubernetesVersion is the version the Kubernetes programs report.
func (b *Set) KubernetesVersion() string { return b.Versions[kubernetesModule] }

const (
	kubernetesModule = "k8s.io/kubernetes"
	etcdModule       = "go.etcd.io/etcd/server/v3"
	kwokModule       = "sigs.k8s.io/kwok"
)

// program is one binary to provide: its name, its module and its main
// package.
type program struct{ name, module, pkg string }

var (
	etcdProgram      = program{"etcd", etcdModule, etcdModule}
	apiserverProgram = program{"kube-apiserver", kubernetesModule, kubernetesModule + "/cmd/kube-apiserver"}
	kubectlProgram   = program{"kubectl", kubernetesModule, kubernetesModule + "/cmd/kubectl"}
	fullPrograms     = []program{
		{"kwok", kwokModule, kwokModule + "/cmd/kwok"},
		{"kube-scheduler", kubernetesModule, kubernetesModule + "/cmd/kube-scheduler"},
		{"kube-controller-manager", kubernetesModule, kubernetesModule + "/cmd/kube-controller-manager"},
	}
)

// programs is what the options need: etcd and kube-apiserver; with Full
// kwok, kube-scheduler and kube-controller-manager; and kubectl when asked
// for.
func (o Options) programs() []program {
	ps := []program{etcdProgram, apiserverProgram}
	if o.Full {
		ps = append(ps, fullPrograms...)
	}
	if o.Kubectl {
		ps = append(ps, kubectlProgram)
	}
	return ps
}

func names(ps []program) string {
	n := make([]string, len(ps))
	for i, p := range ps {
		n[i] = p.name
	}
	return strings.Join(n, ", ")
}
