// Package e2e holds ctrlkit's end-to-end tests: they run against a local
// control plane (see controller/envtest) with kwok nodes, and are built
// only with the e2e build tag, so that `go test ./...` stays fast:
//
//	go test -tags e2e -race -timeout 30m ./internal/e2e/...
//
// The first run builds the control plane's binaries, which takes several
// minutes; `go run ./internal/cmd/localcluster build` does that ahead of
// time. Later runs start a control plane in seconds.
//
// The tests check the control plane itself (kube-controller-manager's own
// Deployment controller rolls out pods on kwok nodes; a pod labelled
// envtest.StuckLabel never becomes Ready) and then ctrlkit's Deployment
// controller, run in the test process against a control plane whose
// kube-controller-manager has no Deployment controller. Scenarios that
// compare with upstream run against both controllers. TestShardedReplicas
// builds examples/deployment-controller and runs replicas of it as
// separate processes, sharded (--shard-ring), which it kills, adds and
// reads the logs and /metrics of. TestMetricsOverHTTPS scrapes a
// manager's HTTPS /metrics with curl and ServiceAccount tokens. Their logs go to the test's temporary
// directory, which is removed when it ends; with CTRLKIT_E2E_LOGS set to
// a directory, they are kept there, one folder per test.
package e2e
