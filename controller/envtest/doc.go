// Package envtest runs a real local Kubernetes control plane for tests and
// tools: etcd and kube-apiserver, like controller-runtime's envtest, or the
// full set, with kube-scheduler, kube-controller-manager and kwok, which
// fakes nodes and the kubelet's pod status updates, so that pods are
// scheduled, run and become Ready without a container runtime.
//
//	env := envtest.StartForTest(t, envtest.Options{CRDPaths: []string{"testdata/crds"}})
//	ns := env.Namespace(t)
//	client := env.Client() // or env.RESTConfig() for the code under test
//
// One environment per test package: RunMain from TestMain, with
// Environment.Namespace for each test. Outside tests: Start and Stop.
//
// # Binaries
//
// The environment runs the programs of Options.Binaries. Left nil, Start
// asks package binaries for the ones the mode needs (binaries.Ensure):
// from Options.BinaryAssetsDirectory or $KUBEBUILDER_ASSETS, as
// setup-envtest makes them, else the user's binary cache, official release
// downloads, or last a build from the Go module proxy (minutes, once per
// machine and ctrlkit version; its progress goes to Options.Log). Call
// binaries.Ensure yourself to get them ahead or to choose the cache,
// downloads and mirrors.
//
// # Modes
//
// APIServerOnly (the zero Options) stores and serves objects, nothing acts on
// them. Full adds the scheduler, kube-controller-manager with the
// controllers of Options.Controllers, and kwok nodes. A pod whose labels
// include StuckLabel never becomes Ready, which lets tests exercise stuck
// rollouts and progress deadlines; Options.PodReadyDelay makes the other pods
// take time to become Ready, so a rollout proceeds in observable steps.
//
// # Webhooks
//
// Environment.InstallWebhooks installs webhook configurations (manifests
// or objects, WebhookInstallOptions) with every webhook calling the
// test's server, and returns once a real request has gone through the API
// server to a handler of each configuration: a dry-run create of
// WebhookInstallOptions.DryRunProbe, which the handlers of package
// webhook/admission mark as reached. Serve the certificate in
// Environment.WebhookCertDir, or set SelfManaged to test the production
// path of package webhook/certs, which writes the caBundle itself:
//
//	srv, _ := webhook.NewServer(webhook.Options{Host: "127.0.0.1", Port: -1, CertDir: env.WebhookCertDir()})
//	// register handlers, start srv
//	err := env.InstallWebhooks(ctx, envtest.WebhookInstallOptions{
//		Paths: []string{"config/webhook"}, Addr: srv.Addr(), DryRunProbe: validWidget})
//
// With WebhookInstallOptions.ConversionPath, the CRDs of Options.CRDPaths
// that convert by webhook call the test's server there too, and
// InstallWebhooks returns once the API server has converted an object of
// each through it and back. Environment.EtcdURL lets a test read what
// etcd holds, e.g. the version an object is stored at.
//
// # Guarantees
//
// Start returns once the API server is ready, the CRDs are Established and,
// in Full mode, the nodes are Ready and schedulable; on error nothing is
// left running. Each Environment runs in its own directory on free
// loopback ports, so several can run at once. Stop ends every process,
// waits until they are all gone, and removes the directory. On Linux the
// processes also die with the process that started them, so a test binary
// that is killed leaves no orphans, and the next Start removes its
// directory; StartForTest and RunMain also stop their environments on
// SIGINT and SIGTERM.
package envtest
