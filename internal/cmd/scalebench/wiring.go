package main

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/sharding"
	"github.com/ctrlkit/ctrlkit/deployment"
	"github.com/ctrlkit/ctrlkit/handler"
)

// ourController is our Deployment controller wired as the
// deployment-controller binary wires it: a protobuf client without gzip, informers
// without managedFields, core/v1 events from eventSource.
type ourController struct {
	ctrl     *controller.Controller[string]
	factory  informers.SharedInformerFactory
	registry *prometheus.Registry
	// shutdown stops the event broadcaster and the informers.
	shutdown func()
}

// newOurController builds it on base with a client rate limit of
// qps/burst, the user agent suffix agent, and wraps around the client's
// transport (request counters); with ring, as that ring's member. The
// broadcaster runs until shutdown; start the factory and run ctrl.
func newOurController(base *rest.Config, qps float64, burst, workers int, agent string, ring *sharding.Ring, wraps ...func(http.RoundTripper) http.RoundTripper) (*ourController, error) {
	rc := rest.CopyConfig(base)
	rc.QPS, rc.Burst = float32(qps), burst
	// Protobuf and no gzip, as the deployment-controller binary and
	// kube-controller-manager ask by default.
	rc.ContentType = runtime.ContentTypeProtobuf
	rc.DisableCompression = true
	rc.UserAgent = "ctrlkit-scalebench/" + agent
	for _, w := range wraps {
		rc.Wrap(w)
	}
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, err
	}
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0,
		informers.WithTransform(handler.StripManagedFields))
	broadcaster := record.NewBroadcaster()
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	recorder := broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: eventSource})
	shutdown := func() {
		broadcaster.Shutdown()
		factory.Shutdown()
	}
	registry := prometheus.NewRegistry()
	ctrl, _, err := deployment.NewController(client, factory, newCountingRecorder(recorder, registry), deployment.Options{
		Controller: controller.Options[string]{Workers: workers, Registry: registry},
		Ring:       ring,
	})
	if err != nil {
		shutdown()
		return nil, err
	}
	return &ourController{ctrl: ctrl, factory: factory, registry: registry, shutdown: shutdown}, nil
}
