package configrollout

import (
	"context"
	"errors"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"

	"github.com/ctrlkit/ctrlkit/controller"
)

// Event reasons the controller records on Deployments.
const (
	// ReasonConfigChanged (Normal): the pods are being rolled for new configuration.
	ReasonConfigChanged = "ConfigChanged"
	// ReasonConfigTracked (Normal): a Deployment was adopted; its hash was recorded without a rollout.
	ReasonConfigTracked = "ConfigTracked"
	// ReasonConfigNotFound (Warning): a required ConfigMap or Secret does not
	// exist; nothing is rolled until it does, since new pods could not start.
	ReasonConfigNotFound = "ConfigNotFound"
)

// FieldManager names the controller's writes in managedFields.
const FieldManager = "configrollout"

// Config is what a Reconciler reads and writes through.
type Config struct {
	// Client writes Deployments. Required.
	Client kubernetes.Interface
	// Deployments, ConfigMaps and Secrets read from informer caches. Required.
	Deployments appslisters.DeploymentLister
	ConfigMaps  corelisters.ConfigMapLister
	Secrets     corelisters.SecretLister
	// Recorder records events on Deployments. Required.
	Recorder record.EventRecorder
}

// Reconciler stamps each opted-in Deployment's pod template with the hash of
// the configuration it mounts. Keys are "namespace/name" of Deployments.
type Reconciler struct {
	cfg Config
}

var _ controller.Reconciler[string] = (*Reconciler)(nil)

// NewReconciler returns a Reconciler, or an error naming a missing field.
func NewReconciler(cfg Config) (*Reconciler, error) {
	var missing []string
	if cfg.Client == nil {
		missing = append(missing, "Client")
	}
	if cfg.Deployments == nil {
		missing = append(missing, "Deployments")
	}
	if cfg.ConfigMaps == nil {
		missing = append(missing, "ConfigMaps")
	}
	if cfg.Secrets == nil {
		missing = append(missing, "Secrets")
	}
	if cfg.Recorder == nil {
		missing = append(missing, "Recorder")
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("configrollout: Config is missing %s", strings.Join(missing, ", "))
	}
	return &Reconciler{cfg: cfg}, nil
}

// Reconcile brings the Deployment named by key ("namespace/name") in line
// with its configuration. A Deployment that is gone or not opted in is left
// alone. Writes are retried on conflict against a fresh read, so a
// concurrent edit is never overwritten.
func (r *Reconciler) Reconcile(ctx context.Context, key string) (controller.Result, error) {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil || namespace == "" || name == "" {
		return controller.Result{}, controller.TerminalError(fmt.Errorf("configrollout: bad key %q: want namespace/name", key))
	}
	cached, err := r.cfg.Deployments.Deployments(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}

	// The first attempt works on the cached copy; a conflict means the cache
	// was stale, so later attempts read the live object.
	attempt := 0
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		attempt++
		d := cached
		if attempt > 1 {
			live, err := r.cfg.Client.AppsV1().Deployments(namespace).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			d = live
		}
		return r.sync(ctx, d)
	})
	if apierrors.IsNotFound(err) {
		return controller.Result{}, nil
	}
	return controller.Result{}, err
}

// sync computes the hash for d's current template and writes what changed.
func (r *Reconciler) sync(ctx context.Context, d *appsv1.Deployment) error {
	if !Enabled(d) || d.DeletionTimestamp != nil {
		return nil
	}
	contents, missing, err := r.read(d.Namespace, RefsOf(&d.Spec.Template.Spec))
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		// Rolling now would start pods that cannot run; the object's
		// creation wakes this Deployment through the reference index.
		r.cfg.Recorder.Eventf(d, corev1.EventTypeWarning, ReasonConfigNotFound,
			"Not rolling out: %s not found", refList(missing))
		return nil
	}
	want := Hash(contents)
	c := changeFor(d, want)
	if c.none() {
		return nil
	}
	d = d.DeepCopy()
	c.apply(d, want)
	if _, err := r.cfg.Client.AppsV1().Deployments(d.Namespace).Update(ctx, d, metav1.UpdateOptions{FieldManager: FieldManager}); err != nil {
		return err
	}
	logger := klog.FromContext(ctx).WithValues("deployment", klog.KObj(d), "hash", want)
	switch {
	case c.roll:
		logger.Info("Rolling out for a configuration change", "previousHash", c.from)
		r.cfg.Recorder.Eventf(d, corev1.EventTypeNormal, ReasonConfigChanged,
			"Rolling out for a configuration change in %s: config hash %s -> %s", refList(contentRefs(contents)), c.from, want)
	case c.from == "":
		logger.Info("Tracking configuration")
		r.cfg.Recorder.Eventf(d, corev1.EventTypeNormal, ReasonConfigTracked,
			"Tracking %s: config hash %s", refList(contentRefs(contents)), want)
	}
	return nil
}

// read fetches every referenced object from the caches. Missing optional
// objects count as absent; missing required ones are returned in missing.
func (r *Reconciler) read(namespace string, refs []Ref) (contents []Content, missing []Ref, err error) {
	contents = make([]Content, 0, len(refs))
	for _, ref := range refs {
		data, err := r.data(namespace, ref)
		switch {
		case apierrors.IsNotFound(err) && ref.Optional:
			contents = append(contents, Content{Ref: ref})
		case apierrors.IsNotFound(err):
			missing = append(missing, ref)
		case err != nil:
			return nil, nil, fmt.Errorf("reading %s: %w", ref, err)
		default:
			contents = append(contents, Content{Ref: ref, Found: true, Data: data})
		}
	}
	return contents, missing, nil
}

func (r *Reconciler) data(namespace string, ref Ref) (map[string][]byte, error) {
	switch ref.Kind {
	case KindConfigMap:
		cm, err := r.cfg.ConfigMaps.ConfigMaps(namespace).Get(ref.Name)
		if err != nil {
			return nil, err
		}
		return configMapData(cm), nil
	case KindSecret:
		s, err := r.cfg.Secrets.Secrets(namespace).Get(ref.Name)
		if err != nil {
			return nil, err
		}
		return s.Data, nil
	default:
		return nil, errors.New("unknown kind " + string(ref.Kind))
	}
}

// configMapData merges Data and BinaryData: both become files or variables
// with the same bytes.
func configMapData(cm *corev1.ConfigMap) map[string][]byte {
	data := make(map[string][]byte, len(cm.Data)+len(cm.BinaryData))
	for k, v := range cm.Data {
		data[k] = []byte(v)
	}
	for k, v := range cm.BinaryData {
		data[k] = v
	}
	return data
}

func contentRefs(contents []Content) []Ref {
	refs := make([]Ref, len(contents))
	for i, c := range contents {
		refs[i] = c.Ref
	}
	return refs
}

func refList(refs []Ref) string {
	if len(refs) == 0 {
		return "no ConfigMaps or Secrets"
	}
	names := make([]string, len(refs))
	for i, r := range refs {
		names[i] = r.String()
	}
	return strings.Join(names, ", ")
}
