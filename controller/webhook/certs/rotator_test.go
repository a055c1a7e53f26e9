package certs

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/cert"
	clocktesting "k8s.io/utils/clock/testing"
)

const (
	ns, name  = "operator", "webhook-certs"
	dnsName   = "webhook.operator.svc"
	caLife    = 30 * time.Hour
	certLife  = 3 * time.Hour
	propagate = time.Minute
)

func newRotator(t *testing.T) (*Rotator, *fake.Clientset, *clocktesting.FakeClock) {
	t.Helper()
	client := fake.NewClientset()
	r, err := NewRotator(Options{Client: client, Namespace: ns, Name: name, DNSNames: []string{dnsName},
		CAValidity: caLife, CertValidity: certLife, Propagation: propagate})
	if err != nil {
		t.Fatal(err)
	}
	clock := clocktesting.NewFakeClock(time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC))
	r.clock = clock
	return r, client, clock
}

func secret(t *testing.T, client *fake.Clientset) *corev1.Secret {
	t.Helper()
	s, err := client.CoreV1().Secrets(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// verifies reports whether the Secret's serving certificate verifies for
// dnsName against bundle at now.
func verifies(t *testing.T, s *corev1.Secret, bundle []byte, now time.Time) error {
	t.Helper()
	pool, err := cert.NewPoolFromBytes(bundle)
	if err != nil {
		t.Fatal(err)
	}
	certs, err := cert.ParseCertsPEM(s.Data[corev1.TLSCertKey])
	if err != nil {
		t.Fatal(err)
	}
	_, err = certs[0].Verify(x509.VerifyOptions{DNSName: dnsName, Roots: pool, CurrentTime: now})
	return err
}

func bundleSize(t *testing.T, s *corev1.Secret) int {
	t.Helper()
	certs, err := cert.ParseCertsPEM(s.Data["ca.crt"])
	if err != nil {
		t.Fatal(err)
	}
	return len(certs)
}

func sync(t *testing.T, r *Rotator) time.Duration {
	t.Helper()
	next, err := r.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return next
}

func TestCreatesTheSecret(t *testing.T) {
	r, client, clock := newRotator(t)
	next := sync(t, r)
	s := secret(t, client)
	if s.Type != corev1.SecretTypeTLS {
		t.Errorf("type %s, want kubernetes.io/tls", s.Type)
	}
	if err := verifies(t, s, s.Data["ca.crt"], clock.Now()); err != nil {
		t.Errorf("the serving certificate does not verify against ca.crt: %v", err)
	}
	if _, err := tls.X509KeyPair(s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey]); err != nil {
		t.Errorf("tls.crt and tls.key are no pair: %v", err)
	}
	if want := certLife * 2 / 3; next < want-time.Minute || next > want+time.Minute {
		t.Errorf("next sync in %s, want about %s (two thirds of the serving certificate's life)", next, want)
	}

	before := len(client.Actions())
	sync(t, r)
	for _, a := range client.Actions()[before:] {
		if a.GetVerb() != "get" {
			t.Errorf("a second Sync did %s, want nothing written", a.GetVerb())
		}
	}
}

// TestCARotationKeepsTrust walks a CA rotation step by step: at every
// point, the certificate served verifies against the bundle the API server
// had before the step, so no request fails.
func TestCARotationKeepsTrust(t *testing.T) {
	r, client, clock := newRotator(t)
	sync(t, r)
	oldBundle := secret(t, client).Data["ca.crt"]

	// Sync when told to (renewing the serving certificate on the way)
	// until the new CA is added.
	end := clock.Now().Add(caLife)
	for bundleSize(t, secret(t, client)) < 2 {
		if clock.Now().After(end) {
			t.Fatal("no new CA within the CA's life")
		}
		clock.Step(sync(t, r))
		sync(t, r)
	}
	s := secret(t, client)
	if bundleSize(t, s) != 2 {
		t.Fatalf("bundle of %d CAs after two thirds of the CA's life, want old and new", bundleSize(t, s))
	}
	if err := verifies(t, s, oldBundle, clock.Now()); err != nil {
		t.Fatalf("with the new CA only in the bundle, the served certificate must still be the old CA's: %v", err)
	}
	bundleWithBoth := s.Data["ca.crt"]

	next := sync(t, r)
	if next <= 0 || next > propagate {
		t.Fatalf("next sync in %s, want within the propagation time %s", next, propagate)
	}
	clock.Step(next)
	sync(t, r)
	s = secret(t, client)
	if err := verifies(t, s, bundleWithBoth, clock.Now()); err != nil {
		t.Fatalf("after propagation, the new serving certificate does not verify against old+new: %v", err)
	}
	if err := verifies(t, s, oldBundle, clock.Now()); err == nil {
		t.Fatal("after propagation, the serving certificate is still the old CA's")
	}
	if bundleSize(t, s) != 2 {
		t.Fatal("the old CA left the bundle while replicas may still serve its certificate")
	}

	clock.Step(sync(t, r))
	sync(t, r)
	s = secret(t, client)
	if bundleSize(t, s) != 1 {
		t.Fatalf("bundle of %d CAs after the new certificate propagated, want 1", bundleSize(t, s))
	}
	if err := verifies(t, s, s.Data["ca.crt"], clock.Now()); err != nil {
		t.Fatal(err)
	}
}

func TestRenewsServingCertificate(t *testing.T) {
	r, client, clock := newRotator(t)
	sync(t, r)
	first := string(secret(t, client).Data[corev1.TLSCertKey])
	bundle := secret(t, client).Data["ca.crt"]
	clock.Step(sync(t, r))
	sync(t, r)
	s := secret(t, client)
	if string(s.Data[corev1.TLSCertKey]) == first {
		t.Fatal("the serving certificate was not renewed after two thirds of its life")
	}
	if string(s.Data["ca.crt"]) != string(bundle) {
		t.Error("renewing the serving certificate changed the CA")
	}
	if err := verifies(t, s, bundle, clock.Now()); err != nil {
		t.Error(err)
	}
}

func TestRenewsWhenDNSNamesChange(t *testing.T) {
	r, client, _ := newRotator(t)
	sync(t, r)
	r.opts.DNSNames = []string{dnsName, "webhook.operator.svc.cluster.local"}
	sync(t, r)
	certs, err := cert.ParseCertsPEM(secret(t, client).Data[corev1.TLSCertKey])
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(certs[0].DNSNames, ","); got != "webhook.operator.svc,webhook.operator.svc.cluster.local" {
		t.Errorf("DNS names %s", got)
	}
}

func TestReplacesAnUnreadableSecret(t *testing.T) {
	r, client, clock := newRotator(t)
	_, err := client.CoreV1().Secrets(ns).Create(context.Background(), &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Data:       map[string][]byte{"tls.crt": []byte("garbage")},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sync(t, r)
	s := secret(t, client)
	if err := verifies(t, s, s.Data["ca.crt"], clock.Now()); err != nil {
		t.Error(err)
	}
}

func TestNewRotatorChecksOptions(t *testing.T) {
	_, err := NewRotator(Options{})
	for _, want := range []string{"Client", "Namespace and Name", "DNSNames"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not name %s", err, want)
		}
	}
}

func TestGetCertificateFollowsTheSecret(t *testing.T) {
	r, client, clock := newRotator(t)
	sync(t, r)
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	lister := corev1listers.NewSecretLister(indexer)
	get := GetCertificate(lister, ns, name)
	if _, err := get(&tls.ClientHelloInfo{}); err == nil {
		t.Fatal("a certificate was served before the informer had the Secret")
	}

	s := secret(t, client)
	s.ResourceVersion = "1"
	indexer.Add(s)
	c1, err := get(&tls.ClientHelloInfo{})
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := get(&tls.ClientHelloInfo{}); again != c1 {
		t.Error("the same Secret version was parsed again")
	}

	clock.Step(sync(t, r))
	sync(t, r)
	s = secret(t, client)
	s.ResourceVersion = "2"
	indexer.Update(s)
	c2, err := get(&tls.ClientHelloInfo{})
	if err != nil {
		t.Fatal(err)
	}
	if string(c2.Certificate[0]) == string(c1.Certificate[0]) {
		t.Error("the renewed certificate is not served")
	}
	bundle, err := CABundle(lister, ns, name)
	if err != nil || string(bundle) != string(s.Data["ca.crt"]) {
		t.Errorf("CABundle %q %v", bundle, err)
	}
}

// A validity shorter than the backdating (tests of rotation use seconds)
// still waits two thirds of it, instead of rotating the CA at every Sync.
func TestShortValidityIsNotDueAtOnce(t *testing.T) {
	client := fake.NewClientset()
	r, err := NewRotator(Options{Client: client, Namespace: ns, Name: name, DNSNames: []string{dnsName},
		CAValidity: 30 * time.Second, CertValidity: 30 * time.Second, Propagation: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	clock := clocktesting.NewFakeClock(time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC))
	r.clock = clock
	if next := sync(t, r); next != 20*time.Second {
		t.Errorf("next sync in %s after creating, want 20s", next)
	}
	if next := sync(t, r); next != 20*time.Second || bundleSize(t, secret(t, client)) != 1 {
		t.Errorf("a second Sync at once: next in %s, %d CAs; want 20s and one CA", next, bundleSize(t, secret(t, client)))
	}
}
