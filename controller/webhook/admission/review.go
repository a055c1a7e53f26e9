package admission

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	sigsjson "sigs.k8s.io/json"
)

// maxReviewBytes bounds a review's body: an object is at most about 3 MiB
// (the API server's request limit), and an update's review carries two.
// controller-runtime uses the same bound.
const maxReviewBytes = 7 << 20

// reviewTypeMeta is the only version of the review served.
var reviewTypeMeta = metav1.TypeMeta{APIVersion: admissionv1.SchemeGroupVersion.String(), Kind: "AdmissionReview"}

// badRequest is a request answered with an HTTP error, because it holds no
// review whose UID a response could name.
type badRequest struct {
	code int
	msg  string
}

// readReview reads an AdmissionReview's request from r's body. The
// request's fields are checked by the handlers, which can answer with a
// review.
func readReview(w http.ResponseWriter, r *http.Request) (*admissionv1.AdmissionRequest, *badRequest) {
	if r.Method != http.MethodPost {
		return nil, &badRequest{http.StatusMethodNotAllowed, fmt.Sprintf("method %s, expected POST", r.Method)}
	}
	if ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || ct != "application/json" {
		return nil, &badRequest{http.StatusUnsupportedMediaType,
			fmt.Sprintf("content type %q, expected application/json", r.Header.Get("Content-Type"))}
	}
	// MaxBytesReader, not a plain limit: past the bound it makes net/http
	// close the connection gently, so that the client reads the 413
	// instead of a reset.
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxReviewBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, &badRequest{http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than %d bytes", maxReviewBytes)}
	}
	if err != nil {
		return nil, &badRequest{http.StatusBadRequest, fmt.Sprintf("reading the body: %v", err)}
	}
	if len(body) == 0 {
		return nil, &badRequest{http.StatusBadRequest, "empty body, expected an AdmissionReview"}
	}
	var review admissionv1.AdmissionReview
	// Case-sensitive, as the API server decodes: "Spec" is not "spec".
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(body, &review); err != nil {
		return nil, &badRequest{http.StatusBadRequest, fmt.Sprintf("the body is not an AdmissionReview: %v", err)}
	}
	if review.TypeMeta != reviewTypeMeta {
		return nil, &badRequest{http.StatusBadRequest, fmt.Sprintf("got apiVersion %q kind %q, expected %s %s",
			review.APIVersion, review.Kind, reviewTypeMeta.APIVersion, reviewTypeMeta.Kind)}
	}
	if review.Request == nil {
		return nil, &badRequest{http.StatusBadRequest, "the AdmissionReview has no request"}
	}
	return review.Request, nil
}

// writeReview answers with resp in an AdmissionReview.
func writeReview(w http.ResponseWriter, resp *admissionv1.AdmissionResponse) error {
	body, err := json.Marshal(admissionv1.AdmissionReview{TypeMeta: reviewTypeMeta, Response: resp})
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	_, err = w.Write(body)
	return err
}
