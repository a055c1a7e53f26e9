package certs

import (
	"bytes"
	"context"
	"fmt"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// keeper is the elected replica's part of SelfManaged: it calls the
// Rotator's Sync when it said to, or when the Secret or a configuration
// changes, and writes the bundle into the configurations. A kubectl apply
// that resets a caBundle is undone within a moment.
type keeper struct{ s *SelfManaged }

// Name names the runnable in the manager's logs.
func (k *keeper) Name() string { return "webhook certificates" }

// The key of the only item: every change leads to the same work.
const syncKey = "sync"

// Run syncs until ctx ends. Failures are retried with client-go's
// controller backoff.
func (k *keeper) Run(ctx context.Context) error {
	log := klog.FromContext(ctx).WithName("webhook-certificates")
	ctx = klog.NewContext(ctx, log)
	queue := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "webhook-certificates"})
	defer queue.ShutDown()
	enqueue := func(any) { queue.Add(syncKey) }
	handler := cache.ResourceEventHandlerFuncs{AddFunc: enqueue, UpdateFunc: func(_, o any) { enqueue(o) }, DeleteFunc: enqueue}
	var synced []cache.InformerSynced
	for _, inf := range k.s.informers {
		reg, err := inf.AddEventHandler(handler)
		if err != nil {
			return fmt.Errorf("certs: %w", err)
		}
		defer inf.RemoveEventHandler(reg) //nolint:errcheck // only fails for a foreign registration
		synced = append(synced, reg.HasSynced)
	}
	go func() {
		<-ctx.Done()
		queue.ShutDown()
	}()
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		return nil
	}
	queue.Add(syncKey)
	for {
		key, shutdown := queue.Get()
		if shutdown {
			return nil
		}
		next, err := k.sync(ctx)
		if err != nil {
			log.Error(err, "Keeping webhook certificates failed; retrying")
			queue.AddRateLimited(key)
		} else {
			queue.Forget(key)
			queue.AddAfter(key, next)
		}
		queue.Done(key)
	}
}

// sync makes the Rotator's step and writes the bundle it leaves.
func (k *keeper) sync(ctx context.Context) (next time.Duration, err error) {
	next, bundle, err := k.s.rotator.sync(ctx)
	if err != nil {
		return 0, err
	}
	return next, k.inject(ctx, bundle)
}

// inject writes bundle as the caBundle of every webhook in the named
// configurations and of the named CRDs' conversion webhooks. A configuration not created yet is skipped: its
// informer's event brings the keeper back when it is.
func (k *keeper) inject(ctx context.Context, bundle []byte) error {
	client := k.s.opts.Client.AdmissionregistrationV1()
	validating, mutating := client.ValidatingWebhookConfigurations(), client.MutatingWebhookConfigurations()
	for _, name := range k.s.opts.Webhooks.ValidatingWebhookConfigurations {
		if err := injectInto(ctx, "ValidatingWebhookConfiguration", name, validating.Get, validating.Update,
			func(c *admissionv1.ValidatingWebhookConfiguration) (changed bool) {
				for i := range c.Webhooks {
					changed = setBundle(&c.Webhooks[i].ClientConfig, bundle) || changed
				}
				return changed
			}); err != nil {
			return err
		}
	}
	for _, name := range k.s.opts.Webhooks.MutatingWebhookConfigurations {
		if err := injectInto(ctx, "MutatingWebhookConfiguration", name, mutating.Get, mutating.Update,
			func(c *admissionv1.MutatingWebhookConfiguration) (changed bool) {
				for i := range c.Webhooks {
					changed = setBundle(&c.Webhooks[i].ClientConfig, bundle) || changed
				}
				return changed
			}); err != nil {
			return err
		}
	}
	for _, name := range k.s.opts.Webhooks.CustomResourceDefinitions {
		if err := k.injectCRD(ctx, name, bundle); err != nil {
			return err
		}
	}
	return nil
}

// injectInto reads the configuration kind/name, lets set write the
// bundle, and updates it if set changed something, again on a conflict.
func injectInto[T any](ctx context.Context, kind, name string,
	get func(context.Context, string, metav1.GetOptions) (T, error),
	update func(context.Context, T, metav1.UpdateOptions) (T, error),
	set func(T) bool,
) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cfg, err := get(ctx, name, metav1.GetOptions{})
		if err != nil || !set(cfg) {
			return err
		}
		if _, err = update(ctx, cfg, metav1.UpdateOptions{}); err == nil {
			klog.FromContext(ctx).Info("Wrote the caBundle", "kind", kind, "name", name)
		}
		return err
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("certs: writing the caBundle of %s %s: %w", kind, name, err)
	}
	return nil
}

func setBundle(cc *admissionv1.WebhookClientConfig, bundle []byte) bool {
	if bytes.Equal(cc.CABundle, bundle) {
		return false
	}
	cc.CABundle = bundle
	return true
}
