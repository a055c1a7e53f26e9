package conversion

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"

	"github.com/ctrlkit/ctrlkit/controller/webhook/conversion/internal/hubspoke"
)

// Options configure a conversion webhook handler.
type Options struct {
	// Registerer receives the conversion metrics. Nil means a private
	// registry nobody gathers. Give the one in the webhook.Server's
	// Options, so that one registry holds all webhook metrics.
	Registerer prometheus.Registerer
}

// NewWebhookHandler returns the handler of a CRD conversion webhook
// (apiextensions.k8s.io/v1 ConversionReview) converting the kinds of
// converters, to register on a webhook.Server at the path the CRDs'
// spec.conversion.webhook.clientConfig names. It fails if no converter is
// given, two convert the same group and kind, or the metrics cannot be
// registered.
func NewWebhookHandler(opts Options, converters ...*Converter) (http.Handler, error) {
	if opts.Registerer == nil {
		opts.Registerer = prometheus.NewRegistry()
	}
	if len(converters) == 0 {
		return nil, errors.New("conversion: no converter")
	}
	h := &handler{kinds: map[schema.GroupKind]*hubspoke.Kind{}}
	for _, c := range converters {
		if c == nil || c.kind == nil {
			return nil, errors.New("conversion: a converter is nil: make it with NewHubSpokeConverter")
		}
		if h.kinds[c.kind.GroupKind] != nil {
			return nil, fmt.Errorf("conversion: %s has two converters", c.kind.GroupKind)
		}
		h.kinds[c.kind.GroupKind] = c.kind
	}
	m, err := newMetrics(opts.Registerer)
	if err != nil {
		return nil, fmt.Errorf("conversion: registering metrics: %w", err)
	}
	h.metrics = m
	// Every pair's series exist from the start, so that a rate is 0
	// before the first failure rather than missing.
	for gk, k := range h.kinds {
		for _, from := range k.Names() {
			for _, to := range k.Names() {
				if from != to {
					m.conversions.WithLabelValues(gk.String(), from, to, resultSuccess)
					m.conversions.WithLabelValues(gk.String(), from, to, resultFailure)
				}
			}
		}
	}
	return h, nil
}

type handler struct {
	kinds   map[schema.GroupKind]*hubspoke.Kind
	metrics *metrics
}

// ServeHTTP answers a request that is no ConversionReview with an HTTP
// error, and any review with a review: one that cannot be converted gets
// a failed result.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	logger := klog.FromContext(r.Context())
	req, bad := readReview(w, r)
	if bad != nil {
		bad.Answer(w, r)
		return
	}
	logger = logger.WithValues("webhook", r.URL.Path, "uid", req.UID, "desiredAPIVersion", req.DesiredAPIVersion)
	resp := h.convert(klog.NewContext(r.Context(), logger), req)
	resp.UID = req.UID
	if resp.Result.Status != metav1.StatusSuccess {
		logger.V(2).Info("Conversion failed", "code", resp.Result.Code, "message", resp.Result.Message)
	}
	if err := writeReview(w, resp); err != nil {
		logger.Error(err, "Writing the webhook response")
	}
}

// convert converts every object of req, or none: the first that cannot be
// converted fails the review.
func (h *handler) convert(ctx context.Context, req *conversionRequest) *conversionResponse {
	if req.UID == "" {
		return failed(http.StatusBadRequest, "the ConversionReview's request has no uid")
	}
	if req.DesiredAPIVersion == "" {
		return failed(http.StatusBadRequest, "the request has no desiredAPIVersion")
	}
	desired, err := schema.ParseGroupVersion(req.DesiredAPIVersion)
	if err != nil || desired.Version == "" {
		return failed(http.StatusBadRequest, "the desiredAPIVersion %q is no group/version", req.DesiredAPIVersion)
	}
	if len(req.Objects) == 0 {
		return failed(http.StatusBadRequest, "the request has no objects")
	}
	converted := make([]json.RawMessage, len(req.Objects))
	for i, raw := range req.Objects {
		out, fail := h.convertObject(ctx, raw, desired)
		if fail != nil {
			fail.Result.Message = fmt.Sprintf("object %d %s", i, fail.Result.Message)
			return fail
		}
		converted[i] = out
	}
	return &conversionResponse{ConvertedObjects: converted, Result: metav1.Status{Status: metav1.StatusSuccess}}
}

// convertObject converts one object to desired, or explains in a failed
// result (whose message follows "object <index> ") why it cannot.
func (h *handler) convertObject(ctx context.Context, raw json.RawMessage, desired schema.GroupVersion) (json.RawMessage, *conversionResponse) {
	hdr, err := hubspoke.ParseHeader(raw)
	if err != nil {
		return nil, failed(http.StatusBadRequest, "cannot be converted: %v", err)
	}
	gvk, err := hdr.GroupVersionKind()
	if err != nil || gvk.Version == "" || gvk.Kind == "" {
		return nil, failed(http.StatusBadRequest, "has apiVersion %q and kind %q: it needs both", hdr.APIVersion, hdr.Kind)
	}
	id := identify(hdr)
	k := h.kinds[gvk.GroupKind()]
	switch {
	case k == nil:
		return nil, failed(http.StatusBadRequest, "%s is a %s, which this webhook does not convert (it converts %s)", id, gvk.GroupKind(), h.kindNames())
	case gvk.Group != desired.Group:
		return nil, failed(http.StatusBadRequest, "%s is in group %q, but the desiredAPIVersion %s is in another", id, gvk.Group, desired)
	case k.Versions[gvk.Version] == nil:
		return nil, failed(http.StatusBadRequest, "%s is at version %q, which %s does not have (it has %s)", id, gvk.Version, k.GroupKind, strings.Join(k.Names(), ", "))
	case k.Versions[desired.Version] == nil:
		return nil, failed(http.StatusBadRequest, "%s: %s has no version %q, the desiredAPIVersion (it has %s)", id, k.GroupKind, desired.Version, strings.Join(k.Names(), ", "))
	}
	start := time.Now()
	out, err := k.ConvertJSON(ctx, raw, hdr, desired.Version)
	if gvk.Version != desired.Version {
		pair := []string{k.GroupKind.String(), gvk.Version, desired.Version}
		h.metrics.latency.WithLabelValues(pair...).Observe(time.Since(start).Seconds())
		result := resultSuccess
		if err != nil {
			result = resultFailure
		}
		h.metrics.conversions.WithLabelValues(append(pair, result)...).Inc()
	}
	var bad *hubspoke.BadObjectError
	var panicked *hubspoke.PanicError
	switch {
	case err == nil:
		return out, nil
	case errors.As(err, &bad):
		return nil, failed(http.StatusBadRequest, "%s cannot be converted: %v", id, err)
	case errors.As(err, &panicked):
		h.metrics.panics.WithLabelValues().Inc()
		klog.FromContext(ctx).Error(err, "Conversion panicked", "object", id, "from", gvk.Version, "to", desired.Version,
			"stack", string(panicked.Stack))
		return nil, failed(http.StatusInternalServerError, "%s: the conversion from %s to %s panicked: %v", id, gvk.Version, desired.Version, panicked.Value)
	default:
		return nil, failed(http.StatusInternalServerError, "%s: converting from %s to %s: %v", id, gvk.Version, desired.Version, err)
	}
}

// identify names an object in a message: (namespace/name) or (name).
func identify(h hubspoke.Header) string {
	switch {
	case h.Namespace != "":
		return fmt.Sprintf("(%s/%s)", h.Namespace, h.Name)
	case h.Name != "":
		return fmt.Sprintf("(%s)", h.Name)
	}
	return "(unnamed)"
}

// kindNames lists the kinds converted, sorted.
func (h *handler) kindNames() string {
	var names []string
	for gk := range h.kinds {
		names = append(names, gk.String())
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// failed is a failed result. The API server shows its message to the
// client whose request needed the conversion.
func failed(code int32, format string, args ...any) *conversionResponse {
	reason := metav1.StatusReasonBadRequest
	if code == http.StatusInternalServerError {
		reason = metav1.StatusReasonInternalError
	}
	return &conversionResponse{Result: metav1.Status{Status: metav1.StatusFailure, Code: code, Reason: reason,
		Message: fmt.Sprintf(format, args...)}}
}
