package conversion

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	sigsjson "sigs.k8s.io/json"

	"github.com/ctrlkit/ctrlkit/controller/webhook/internal/review"
)

// The ConversionReview of apiextensions.k8s.io/v1, spelled here so that a
// user of this package does not depend on k8s.io/apiextensions-apiserver
// (and the API server it brings). Objects stay raw: each is decoded into
// its version's Go type.
type conversionReview struct {
	metav1.TypeMeta `json:",inline"`
	Request         *conversionRequest  `json:"request,omitempty"`
	Response        *conversionResponse `json:"response,omitempty"`
}

type conversionRequest struct {
	UID               types.UID         `json:"uid"`
	DesiredAPIVersion string            `json:"desiredAPIVersion"`
	Objects           []json.RawMessage `json:"objects"`
}

type conversionResponse struct {
	UID              types.UID         `json:"uid"`
	ConvertedObjects []json.RawMessage `json:"convertedObjects"`
	Result           metav1.Status     `json:"result"`
}

// maxReviewBytes bounds a review's body, so that a client cannot make the
// webhook read without end. The bound is generous: a list's conversion
// carries every object of the list that is not at the desired version, and
// a review over it fails the whole list.
var maxReviewBytes int64 = 128 << 20

// reviewTypeMeta is the only version of the review served: the API server
// sends v1 when the CRD's conversionReviewVersions lists it (controller-gen
// lists only v1).
var reviewTypeMeta = metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "ConversionReview"}

// readReview reads a ConversionReview's request from r's body. The
// request's fields are checked by the handler, which can answer with a
// review.
func readReview(w http.ResponseWriter, r *http.Request) (*conversionRequest, *review.BadRequest) {
	body, bad := review.ReadBody(w, r, maxReviewBytes, "a ConversionReview")
	if bad != nil {
		return nil, bad
	}
	cr, err := decodeReview(body)
	if err != nil {
		return nil, &review.BadRequest{Code: http.StatusBadRequest, Msg: err.Error()}
	}
	return cr.Request, nil
}

// decodeReview decodes a ConversionReview with a request, case-sensitively
// as the API server encodes it ("Request" is not "request").
func decodeReview(body []byte) (*conversionReview, error) {
	var review conversionReview
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(body, &review); err != nil {
		return nil, fmt.Errorf("the body is not a ConversionReview: %v", err)
	}
	if review.TypeMeta != reviewTypeMeta {
		return nil, fmt.Errorf("got apiVersion %q kind %q, expected %s %s",
			review.APIVersion, review.Kind, reviewTypeMeta.APIVersion, reviewTypeMeta.Kind)
	}
	if review.Request == nil {
		return nil, errors.New("the ConversionReview has no request")
	}
	return &review, nil
}

// writeReview answers with resp in a ConversionReview.
func writeReview(w http.ResponseWriter, resp *conversionResponse) error {
	return review.Write(w, conversionReview{TypeMeta: reviewTypeMeta, Response: resp})
}
