package admission_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/cert"

	"github.com/ctrlkit/ctrlkit/controller/webhook"
	"github.com/ctrlkit/ctrlkit/controller/webhook/admission"
)

// A defaulter and a validator of ConfigMaps (any Go type works the same
// way, a CRD's too) registered on a webhook server, and the answers to
// two reviews as the API server would send them.
func Example() {
	defaulter := admission.DefaulterFunc[corev1.ConfigMap](func(ctx context.Context, cm *corev1.ConfigMap) error {
		if cm.Labels["team"] == "" {
			if cm.Labels == nil {
				cm.Labels = map[string]string{}
			}
			cm.Labels["team"] = "unowned"
		}
		return nil
	})
	validator := admission.ValidatorFuncs[corev1.ConfigMap]{
		Create: func(ctx context.Context, cm *corev1.ConfigMap) (admission.Warnings, error) {
			var errs field.ErrorList
			if _, ok := cm.Data["config.yaml"]; !ok {
				errs = append(errs, field.Required(field.NewPath("data").Key("config.yaml"), "every ConfigMap carries its config"))
			}
			return admission.Warnings{"ConfigMaps are checked by example.com"}, errs.ToAggregate()
		},
	}

	srv, client, stop := startServer()
	defer stop()
	srv.Register("/default-configmap", admission.WithDefaulter[corev1.ConfigMap](defaulter))
	srv.Register("/validate-configmap", admission.WithValidator[corev1.ConfigMap](validator))

	object := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app"},"data":{"other":"x"}}`
	resp := send(client, "https://"+srv.Addr()+"/default-configmap", object)
	fmt.Printf("default: allowed=%t patch=%s\n", resp.Allowed, resp.Patch)

	resp = send(client, "https://"+srv.Addr()+"/validate-configmap", object)
	fmt.Printf("validate: allowed=%t code=%d warnings=%q\n", resp.Allowed, resp.Result.Code, resp.Warnings)
	for _, cause := range resp.Result.Details.Causes {
		fmt.Printf("  %s: %s\n", cause.Field, cause.Message)
	}
	// Output:
	// default: allowed=true patch=[{"op":"add","path":"/metadata/labels","value":{"team":"unowned"}}]
	// validate: allowed=false code=422 warnings=["ConfigMaps are checked by example.com"]
	//   data[config.yaml]: Required value: every ConfigMap carries its config
}

// send posts a CREATE review of object, as the API server would.
func send(client *http.Client, url, object string) *admissionv1.AdmissionResponse {
	body, _ := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{UID: "1", Operation: admissionv1.Create,
			Kind: metav1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Name: "app",
			Object: runtime.RawExtension{Raw: []byte(object)}},
	})
	resp, err := client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(resp.Body).Decode(&review); err != nil {
		panic(err)
	}
	return review.Response
}

// startServer starts a webhook server with a new self-signed certificate
// (in a cluster: cert-manager's, or a mounted Secret) and returns a client
// that trusts it.
func startServer() (*webhook.Server, *http.Client, func()) {
	dir, _ := os.MkdirTemp("", "admission-example")
	certPEM, keyPEM, _ := cert.GenerateSelfSignedCertKey("localhost", []net.IP{net.ParseIP("127.0.0.1")}, nil)
	os.WriteFile(filepath.Join(dir, "tls.crt"), certPEM, 0o600)
	os.WriteFile(filepath.Join(dir, "tls.key"), keyPEM, 0o600)
	srv, err := webhook.NewServer(webhook.Options{Host: "127.0.0.1", Port: -1, CertDir: dir})
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- srv.Start(ctx) }()
	err = wait.PollUntilContextTimeout(ctx, time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return srv.Addr() != "", nil
	})
	if err != nil {
		panic(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(certPEM)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}, DisableKeepAlives: true}}
	return srv, client, func() { cancel(); <-done; os.RemoveAll(dir) }
}
