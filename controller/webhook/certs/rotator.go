package certs

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/cert"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/ctrlkit/ctrlkit/controller/internal/pki"
)

// The Secret's keys: a kubernetes.io/tls Secret with the CA beside.
const (
	keyCert     = corev1.TLSCertKey       // the serving certificate
	keyKey      = corev1.TLSPrivateKeyKey // its key
	keyCABundle = "ca.crt"                // the CAs to trust, newest first: the caBundle
	keyCAKey    = "ca.key"                // the key of the newest CA
)

// Options say which Secret holds the certificates and what they are for.
type Options struct {
	// Client writes the Secret. Required.
	Client kubernetes.Interface
	// Namespace and Name of the Secret. Required.
	Namespace, Name string
	// DNSNames the API server calls the webhook by, e.g.
	// "my-webhook.my-ns.svc". An IP address (a URL clientConfig such as
	// https://127.0.0.1:9443) becomes an IP SAN. The serving certificate
	// is renewed when they change. Required.
	DNSNames []string
	// CAValidity and CertValidity are the lifetimes of the CA (default 10
	// years) and of the serving certificate (default 1 year). Each is
	// replaced after two thirds of its life.
	CAValidity, CertValidity time.Duration
	// Propagation is how long a new CA sits in the bundle before the
	// serving certificate is issued from it, and how long the old CA stays
	// after that: the time for the caBundle to reach the webhook
	// configurations and for every replica to serve the new certificate.
	// Default 1 minute.
	Propagation time.Duration
}

// Rotator keeps the Secret's CA and serving certificate valid. One
// replica (the elected one) runs it; all replicas serve from the Secret
// through GetCertificate.
type Rotator struct {
	opts  Options
	clock clock.PassiveClock
}

// NewRotator checks opts and fills in the defaults.
func NewRotator(opts Options) (*Rotator, error) {
	var errs []error
	if opts.Client == nil {
		errs = append(errs, errors.New("Options.Client is required"))
	}
	if opts.Namespace == "" || opts.Name == "" {
		errs = append(errs, errors.New("Options.Namespace and Name are required"))
	}
	if len(opts.DNSNames) == 0 {
		errs = append(errs, errors.New("Options.DNSNames are required"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("certs: %w", err)
	}
	if opts.CAValidity <= 0 {
		opts.CAValidity = 10 * 365 * 24 * time.Hour
	}
	if opts.CertValidity <= 0 {
		opts.CertValidity = 365 * 24 * time.Hour
	}
	if opts.Propagation <= 0 {
		opts.Propagation = time.Minute
	}
	return &Rotator{opts: opts, clock: clock.RealClock{}}, nil
}

// state is what the Secret holds, parsed.
type state struct {
	bundle  []*x509.Certificate // newest first
	ca      *pki.Pair           // the newest CA, which signs
	serving *pki.Pair
}

// Sync makes one step towards valid certificates: it creates the Secret,
// adds a new CA to the bundle, issues a serving certificate from the
// newest CA once that CA has propagated, or drops an old CA once the
// serving certificate from the new one has. It returns when to call it
// again. A conflict on the Secret is returned as an error: call again.
func (r *Rotator) Sync(ctx context.Context) (time.Duration, error) {
	next, _, err := r.sync(ctx)
	return next, err
}

// sync is Sync, and also returns the caBundle the Secret holds now.
func (r *Rotator) sync(ctx context.Context) (time.Duration, []byte, error) {
	now := r.clock.Now()
	secrets := r.opts.Client.CoreV1().Secrets(r.opts.Namespace)
	secret, err := secrets.Get(ctx, r.opts.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		st, err := r.fresh(now)
		if err != nil {
			return 0, nil, err
		}
		secret = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: r.opts.Namespace, Name: r.opts.Name}, Type: corev1.SecretTypeTLS}
		st.store(secret)
		if _, err := secrets.Create(ctx, secret, metav1.CreateOptions{}); err != nil {
			return 0, nil, fmt.Errorf("certs: creating Secret %s/%s: %w", r.opts.Namespace, r.opts.Name, err)
		}
		klog.FromContext(ctx).Info("Created webhook certificates", "secret", klog.KObj(secret))
		return r.next(st, now), secret.Data[keyCABundle], nil
	}
	if err != nil {
		return 0, nil, fmt.Errorf("certs: reading Secret %s/%s: %w", r.opts.Namespace, r.opts.Name, err)
	}
	st, err := parse(secret)
	var step string
	if err != nil {
		// Nothing can be kept: start over, as for a new Secret.
		klog.FromContext(ctx).Error(err, "Replacing unreadable webhook certificates", "secret", klog.KObj(secret))
		if st, err = r.fresh(now); err != nil {
			return 0, nil, err
		}
		step = "replaced unreadable certificates"
	} else if step, err = r.step(st, now); err != nil {
		return 0, nil, err
	}
	if step != "" {
		secret = secret.DeepCopy()
		st.store(secret)
		if _, err := secrets.Update(ctx, secret, metav1.UpdateOptions{}); err != nil {
			return 0, nil, fmt.Errorf("certs: updating Secret %s/%s: %w", r.opts.Namespace, r.opts.Name, err)
		}
		klog.FromContext(ctx).Info("Rotated webhook certificates", "secret", klog.KObj(secret), "step", step)
	}
	return r.next(st, now), secret.Data[keyCABundle], nil
}

// fresh is a new CA and a serving certificate from it.
func (r *Rotator) fresh(now time.Time) (*state, error) {
	ca, err := pki.NewCA(r.opts.Name, now, r.opts.CAValidity)
	if err != nil {
		return nil, err
	}
	serving, err := pki.NewServing(ca, r.opts.DNSNames, now, r.opts.CertValidity)
	if err != nil {
		return nil, err
	}
	return &state{bundle: []*x509.Certificate{ca.Cert}, ca: ca, serving: serving}, nil
}

// step changes st by the first step that is due, and names it; "" if none.
func (r *Rotator) step(st *state, now time.Time) (string, error) {
	byNewest := st.serving.Cert.CheckSignatureFrom(st.ca.Cert) == nil
	var err error
	switch {
	case byNewest && !now.Before(renewAt(st.ca.Cert)):
		var ca *pki.Pair
		if ca, err = pki.NewCA(r.opts.Name, now, r.opts.CAValidity); err == nil {
			st.bundle, st.ca = append([]*x509.Certificate{ca.Cert}, st.bundle...), ca
		}
		return "added a new CA to the bundle", err
	case !byNewest && !now.Before(pki.IssuedAt(st.ca.Cert).Add(r.opts.Propagation)):
		st.serving, err = pki.NewServing(st.ca, r.opts.DNSNames, now, r.opts.CertValidity)
		return "issued the serving certificate from the new CA", err
	case byNewest && (!now.Before(renewAt(st.serving.Cert)) || !sameNames(pki.Names(st.serving.Cert), r.opts.DNSNames)):
		st.serving, err = pki.NewServing(st.ca, r.opts.DNSNames, now, r.opts.CertValidity)
		return "renewed the serving certificate", err
	case byNewest && len(st.bundle) > 1 && !now.Before(pki.IssuedAt(st.serving.Cert).Add(r.opts.Propagation)):
		st.bundle = st.bundle[:1]
		return "dropped the old CA from the bundle", nil
	}
	return "", nil
}

// next is how long until a step is due; it mirrors step's cases.
func (r *Rotator) next(st *state, now time.Time) time.Duration {
	var due []time.Time
	if st.serving.Cert.CheckSignatureFrom(st.ca.Cert) != nil {
		// Mid-rotation: nothing else happens until the new CA propagated.
		due = append(due, pki.IssuedAt(st.ca.Cert).Add(r.opts.Propagation))
	} else {
		due = append(due, renewAt(st.ca.Cert), renewAt(st.serving.Cert))
		if len(st.bundle) > 1 {
			due = append(due, pki.IssuedAt(st.serving.Cert).Add(r.opts.Propagation))
		}
	}
	return max(0, slices.MinFunc(due, time.Time.Compare).Sub(now))
}

// renewAt is when c has lived two thirds of its life.
// Its life counts from its issue, not from the backdated NotBefore: with a
// short validity (tests of rotation) the backdating would make it due at
// once, again and again.
func renewAt(c *x509.Certificate) time.Time {
	issued := pki.IssuedAt(c)
	return issued.Add(c.NotAfter.Sub(issued) * 2 / 3)
}

func parse(secret *corev1.Secret) (*state, error) {
	bundle, err := cert.ParseCertsPEM(secret.Data[keyCABundle])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", keyCABundle, err)
	}
	ca, err := pki.ParsePair(secret.Data[keyCABundle], secret.Data[keyCAKey])
	if err != nil {
		return nil, fmt.Errorf("the CA: %w", err)
	}
	serving, err := pki.ParsePair(secret.Data[keyCert], secret.Data[keyKey])
	if err != nil {
		return nil, fmt.Errorf("the serving certificate: %w", err)
	}
	return &state{bundle: bundle, ca: ca, serving: serving}, nil
}

func (st *state) store(secret *corev1.Secret) {
	bundle, _ := cert.EncodeCertificates(st.bundle...) // encoding parsed certificates cannot fail
	secret.Data = map[string][]byte{
		keyCert:     st.serving.CertPEM,
		keyKey:      st.serving.KeyPEM,
		keyCABundle: bundle,
		keyCAKey:    st.ca.KeyPEM,
	}
}

// sameNames reports whether a and b hold the same names in any order.
func sameNames(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
