package envtest

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// The command lines of the components. Everything listens on 127.0.0.1 only.

func etcdArgs(dir, clientURL string, peerPort int) []string {
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peerPort)
	return []string{
		"--name=envtest",
		"--data-dir=" + filepath.Join(dir, "etcd"),
		"--listen-client-urls=" + clientURL,
		"--advertise-client-urls=" + clientURL,
		"--listen-peer-urls=" + peerURL,
		"--initial-advertise-peer-urls=" + peerURL,
		"--initial-cluster=envtest=" + peerURL,
		// The data dies with the instance: durability buys nothing here.
		"--unsafe-no-fsync",
		"--log-level=warn",
	}
}

func apiserverArgs(dir, etcdURL string, port int, keys *keyMaterial, opts Options) []string {
	args := []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", port),
		"--cert-dir=" + filepath.Join(dir, "apiserver-certs"),
		"--tls-cert-file=" + keys.servingCertFile,
		"--tls-private-key-file=" + keys.servingKeyFile,
		"--token-auth-file=" + keys.tokenFile,
		"--authorization-mode=RBAC",
		"--service-account-key-file=" + keys.saKeyFile,
		"--service-account-signing-key-file=" + keys.saKeyFile,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		// No token controller runs, so pods could never get a token.
		"--disable-admission-plugins=ServiceAccount",
		"--service-cluster-ip-range=10.96.0.0/16",
		// A loopback address is not a valid endpoint for the kubernetes service.
		"--endpoint-reconciler-type=none",
		"--profiling=false",
	}
	args = append(args, featureGateArgs(opts.FeatureGates)...)
	return append(args, opts.APIServerFlags...)
}

// featureGateArgs renders gates as one --feature-gates flag, sorted so that
// the command line is the same every time.
func featureGateArgs(gates map[string]bool) []string {
	if len(gates) == 0 {
		return nil
	}
	var pairs []string
	for _, name := range slices.Sorted(maps.Keys(gates)) {
		pairs = append(pairs, fmt.Sprintf("%s=%t", name, gates[name]))
	}
	return []string{"--feature-gates=" + strings.Join(pairs, ",")}
}

// kcmControllers is kcm's --controllers list: opts.Controllers (nil means
// DefaultControllers) and nodelifecycle, which takes the not-ready taint off
// kwok's nodes.
func kcmControllers(opts Options) []string {
	controllers := opts.Controllers
	if controllers == nil {
		controllers = DefaultControllers
	}
	if slices.Contains(controllers, "nodelifecycle") {
		return controllers
	}
	return append(slices.Clone(controllers), "nodelifecycle")
}

func kcmArgs(kubeconfig string, port int, opts Options) []string {
	qps := opts.kcmQPS()
	args := append(clientArgs(kubeconfig, port),
		"--controllers="+strings.Join(kcmControllers(opts), ","),
		fmt.Sprintf("--kube-api-qps=%g", qps),
		fmt.Sprintf("--kube-api-burst=%d", int(2*qps)),
	)
	return append(args, featureGateArgs(opts.FeatureGates)...)
}

func schedulerArgs(kubeconfig string, port int, opts Options) []string {
	return append(clientArgs(kubeconfig, port), featureGateArgs(opts.FeatureGates)...)
}

// clientArgs are the flags kcm and kube-scheduler share: the admin
// kubeconfig for everything, no leader election (one replica), and a
// loopback health port.
func clientArgs(kubeconfig string, port int) []string {
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
		"--leader-elect=false",
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", port),
	}
}

func kwokArgs(kubeconfig, config string) []string {
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--config=" + config,
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector=" + kwokNodeAnnotation + "=fake",
		// Renew node leases like a kubelet, or nodelifecycle marks the
		// nodes unreachable and evicts their pods.
		"--node-lease-duration-seconds=40",
	}
}
