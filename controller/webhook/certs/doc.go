// Package certs keeps a webhook's certificates in a Secret, so that an
// operator needs no cert-manager: a CA and a serving certificate that the
// library creates and rotates itself.
//
// One replica, the elected one, runs a Rotator: calling Sync creates the
// Secret (a kubernetes.io/tls Secret whose ca.crt holds the caBundle and
// ca.key the CA's key) and then, each time Sync is called when it said,
// makes one step of a rotation. Every replica serves from the Secret with
// GetCertificate, which reads it from an informer's lister on every
// handshake: a rotated certificate is served as soon as the informer sees
// it, with no wait for the kubelet to sync a mounted volume.
//
// A rotation never serves a certificate the API server cannot verify:
//
//  1. after two thirds of the CA's life, a new CA is added to the bundle
//     (the old one stays) while the old serving certificate is served;
//  2. Options.Propagation later (time for the caBundle to reach the
//     webhook configurations), the serving certificate is issued from the
//     new CA;
//  3. Propagation after that (time for every replica to serve it), the old
//     CA leaves the bundle.
//
// A serving certificate is renewed after two thirds of its life, or when
// DNSNames change, by the same CA. CABundle gives the bundle to write into
// the webhook configurations.
//
// SelfManaged runs all of it in a manager:
//
//	sm, err := certs.NewSelfManaged(certs.SelfManagedOptions{
//		Options:  certs.Options{Client: client, Namespace: ns, Name: "webhook-certs", DNSNames: []string{"my-webhook.my-ns.svc"}},
//		Webhooks: certs.Webhooks{ValidatingWebhookConfigurations: []string{"my-webhook"}},
//	})
//	srv, err := webhook.NewServer(webhook.Options{TLSConfig: sm.TLSConfig()})
//	mgr, err := manager.New(manager.Options{WebhookServer: srv, ...})
//	err = sm.SetupWithManager(mgr)
//
// The elected replica syncs the Rotator when it said to and writes the
// Secret's bundle (old and new CA during a rotation) into every webhook of
// the named configurations and the named CRDs' conversion webhooks, with client-go's retry on conflicts, again
// whenever a configuration changes (a kubectl apply that resets the
// caBundle). Every replica serves from the Secret's informer. The readiness
// check "webhook-certificates" fails until the chain the server really
// serves verifies, for the host the API server calls (the Service's DNS
// name or the URL's host), against the caBundle of every one of those
// webhooks, and names each that would not trust it and why. With
// SelfManagedOptions.DryRunProbe it also waits, once, until a dry-run
// create of that object through the API server has reached a handler of
// each configuration. The replica
// needs get, list, watch and update on those configurations, CRDs and the
// Secret, and create on Secrets.
//
// The metrics endpoint can serve from the same Secret, over HTTPS:
// manager.Options.MetricsTLS = manager.MetricsTLS{SecureServing: true,
// TLSConfig: sm.TLSConfig()}, with the metrics Service's DNS name (the
// serverName a Prometheus ServiceMonitor's tlsConfig gives, beside its ca
// from the Secret's ca.crt) added to DNSNames. Until the Secret reaches the
// replica's informer, handshakes fail; a rotation reaches /metrics as it
// reaches the webhooks.
package certs
