package admission

import (
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	sigsjson "sigs.k8s.io/json"

	"github.com/ctrlkit/ctrlkit/controller/webhook/internal/review"
)

// maxReviewBytes bounds a review's body: an object is at most about 3 MiB
// (the API server's request limit), and an update's review carries two.
// controller-runtime uses the same bound.
const maxReviewBytes = 7 << 20

// reviewTypeMeta is the only version of the review served.
var reviewTypeMeta = metav1.TypeMeta{APIVersion: admissionv1.SchemeGroupVersion.String(), Kind: "AdmissionReview"}

// readReview reads an AdmissionReview's request from r's body. The
// request's fields are checked by the handlers, which can answer with a
// review.
func readReview(w http.ResponseWriter, r *http.Request) (*admissionv1.AdmissionRequest, *review.BadRequest) {
	body, bad := review.ReadBody(w, r, maxReviewBytes, "an AdmissionReview")
	if bad != nil {
		return nil, bad
	}
	var ar admissionv1.AdmissionReview
	// Case-sensitive, as the API server decodes: "Spec" is not "spec".
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(body, &ar); err != nil {
		return nil, &review.BadRequest{Code: http.StatusBadRequest, Msg: fmt.Sprintf("the body is not an AdmissionReview: %v", err)}
	}
	if ar.TypeMeta != reviewTypeMeta {
		return nil, &review.BadRequest{Code: http.StatusBadRequest, Msg: fmt.Sprintf("got apiVersion %q kind %q, expected %s %s",
			ar.APIVersion, ar.Kind, reviewTypeMeta.APIVersion, reviewTypeMeta.Kind)}
	}
	if ar.Request == nil {
		return nil, &review.BadRequest{Code: http.StatusBadRequest, Msg: "the AdmissionReview has no request"}
	}
	return ar.Request, nil
}

// writeReview answers with resp in an AdmissionReview.
func writeReview(w http.ResponseWriter, resp *admissionv1.AdmissionResponse) error {
	return review.Write(w, admissionv1.AdmissionReview{TypeMeta: reviewTypeMeta, Response: resp})
}
