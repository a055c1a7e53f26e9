package conversion_test

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
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/cert"

	"github.com/ctrlkit/ctrlkit/controller/webhook"
	"github.com/ctrlkit/ctrlkit/controller/webhook/conversion"
)

// Two versions of a Gadget, as a user's API packages declare them: v1
// (the hub) renamed v1alpha1's size to replicas and split its image
// "repository:tag" in two.
type GadgetV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Replicas   int32  `json:"replicas"`
		Repository string `json:"repository"`
		Tag        string `json:"tag,omitempty"`
	} `json:"spec"`
}

type GadgetV1alpha1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Size  int32  `json:"size"`
		Image string `json:"image"`
	} `json:"spec"`
}

// The conversions, outside the API packages.
func gadgetV1ToV1alpha1(_ context.Context, src *GadgetV1, dst *GadgetV1alpha1) error {
	dst.ObjectMeta = src.ObjectMeta
	dst.Spec.Size = src.Spec.Replicas
	dst.Spec.Image = src.Spec.Repository
	if src.Spec.Tag != "" {
		dst.Spec.Image += ":" + src.Spec.Tag
	}
	return nil
}

func gadgetV1alpha1ToV1(_ context.Context, src *GadgetV1alpha1, dst *GadgetV1) error {
	dst.ObjectMeta = src.ObjectMeta
	dst.Spec.Replicas = src.Spec.Size
	dst.Spec.Repository, dst.Spec.Tag, _ = strings.Cut(src.Spec.Image, ":")
	return nil
}

// A conversion webhook for Gadgets on a webhook server, and its answer to
// a review as the API server sends it when a client reads a v1alpha1
// Gadget at v1.
func Example() {
	gadgets, err := conversion.NewHubSpokeConverter(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gadget"},
		conversion.NewSpokeConverter("v1alpha1", gadgetV1ToV1alpha1, gadgetV1alpha1ToV1))
	if err != nil {
		panic(err)
	}
	h, err := conversion.NewWebhookHandler(conversion.Options{}, gadgets)
	if err != nil {
		panic(err)
	}
	srv, client, stop := startServer()
	defer stop()
	srv.Register("/convert", h)

	review := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{
		"uid":"1","desiredAPIVersion":"example.com/v1","objects":[
		{"apiVersion":"example.com/v1alpha1","kind":"Gadget","metadata":{"name":"g","resourceVersion":"7"},
		 "spec":{"size":2,"image":"nginx:1.27"}}]}}`
	resp, err := client.Post("https://"+srv.Addr()+"/convert", "application/json", strings.NewReader(review))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var answer struct {
		Response struct {
			ConvertedObjects []json.RawMessage `json:"convertedObjects"`
			Result           metav1.Status     `json:"result"`
		} `json:"response"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		panic(err)
	}
	var converted bytes.Buffer
	_ = json.Indent(&converted, answer.Response.ConvertedObjects[0], "", " ")
	fmt.Println(answer.Response.Result.Status)
	fmt.Println(converted.String())
	// Output:
	// Success
	// {
	//  "apiVersion": "example.com/v1",
	//  "kind": "Gadget",
	//  "metadata": {
	//   "name": "g",
	//   "resourceVersion": "7"
	//  },
	//  "spec": {
	//   "replicas": 2,
	//   "repository": "nginx",
	//   "tag": "1.27"
	//  }
	// }
}

// startServer starts a webhook server with a new self-signed certificate
// (in a cluster: cert-manager's, or a mounted Secret) and returns a client
// that trusts it.
func startServer() (*webhook.Server, *http.Client, func()) {
	dir, _ := os.MkdirTemp("", "conversion-example")
	certPEM, keyPEM, _ := cert.GenerateSelfSignedCertKey("localhost", []net.IP{net.ParseIP("127.0.0.1")}, nil)
	_ = os.WriteFile(filepath.Join(dir, "tls.crt"), certPEM, 0o600)
	_ = os.WriteFile(filepath.Join(dir, "tls.key"), keyPEM, 0o600)
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
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}, DisableKeepAlives: true}
	return srv, &http.Client{Transport: tr}, func() { cancel(); <-done; tr.CloseIdleConnections(); os.RemoveAll(dir) }
}
