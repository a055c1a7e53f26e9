// Package review holds what every webhook review's HTTP exchange shares,
// whatever the review's type (AdmissionReview, ConversionReview): the
// checks of the request before its body is decoded, the answer to a
// request that holds no review, and the JSON answer.
package review

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"k8s.io/klog/v2"
)

// BadRequest is a request answered with an HTTP error, because it holds
// no review whose UID a response could name.
type BadRequest struct {
	Code int
	Msg  string
}

// Answer logs b at V(1) with the logger of r's context and answers with
// b's code and message.
func (b *BadRequest) Answer(w http.ResponseWriter, r *http.Request) {
	klog.FromContext(r.Context()).V(1).Info("Bad webhook request", "path", r.URL.Path, "code", b.Code, "reason", b.Msg)
	http.Error(w, "webhook: "+b.Msg, b.Code)
}

// ReadBody reads a review's body: r must be a POST of application/json,
// not empty and at most maxBytes long. kind names the review expected
// ("an AdmissionReview") in the error.
func ReadBody(w http.ResponseWriter, r *http.Request, maxBytes int64, kind string) ([]byte, *BadRequest) {
	if r.Method != http.MethodPost {
		return nil, &BadRequest{http.StatusMethodNotAllowed, fmt.Sprintf("method %s, expected POST", r.Method)}
	}
	if ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || ct != "application/json" {
		return nil, &BadRequest{http.StatusUnsupportedMediaType,
			fmt.Sprintf("content type %q, expected application/json", r.Header.Get("Content-Type"))}
	}
	// MaxBytesReader, not a plain limit: past the bound it makes net/http
	// close the connection gently, so that the client reads the 413
	// instead of a reset.
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, &BadRequest{http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than %d bytes", maxBytes)}
	}
	if err != nil {
		return nil, &BadRequest{http.StatusBadRequest, fmt.Sprintf("reading the body: %v", err)}
	}
	if len(body) == 0 {
		return nil, &BadRequest{http.StatusBadRequest, "empty body, expected " + kind}
	}
	return body, nil
}

// Write answers with review as JSON.
func Write(w http.ResponseWriter, review any) error {
	body, err := json.Marshal(review)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	_, err = w.Write(body)
	return err
}
