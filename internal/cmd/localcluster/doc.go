// Command localcluster runs ctrlkit's local control plane for people: etcd,
// kube-apiserver, kube-scheduler, kube-controller-manager and kwok with fake
// nodes, built from source on first use.
//
// Usage (from the ctrlkit checkout):
//
//	go run ./internal/cmd/localcluster [flags]   start, print the kubeconfig, run until Ctrl-C
//	go run ./internal/cmd/localcluster build     build and cache the binaries, print where
//
// It runs in the foreground: Ctrl-C (or SIGTERM) stops every process and
// removes the instance's directory. While it runs, use the printed
// kubeconfig, e.g.
//
//	export KUBECONFIG=/tmp/ctrlkit-envtest-123/kubeconfig
//	kubectl get nodes
//
// Flags:
//
//	-nodes N                  kwok nodes (default 1)
//	-upstream-deployment      also run kube-controller-manager's Deployment controller
//	-pod-ready-delay D        time before a scheduled pod turns Ready (default 0)
//	-pod-ready-jitter D       random extra time on top of that (default 0)
//	-kcm-qps Q                kube-controller-manager client QPS (default 200)
//	-dir D                    keep the instance's files (logs, etcd data) in D
package main
