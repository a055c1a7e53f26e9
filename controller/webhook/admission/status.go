package admission

import (
	"errors"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// denied turns a handler's error into a denial:
//   - an API status error (apierrors.NewForbidden, NewInvalid, ...) is sent
//     as its Status;
//   - a *field.Error, or field.ErrorList.ToAggregate(), becomes
//     apierrors.NewInvalid for the request's kind and name: a 422 whose
//     causes name each field, which kubectl prints one by one;
//   - any other error is a 403 Forbidden with its message.
func denied(req *admissionv1.AdmissionRequest, err error) *admissionv1.AdmissionResponse {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return deny(status.Status())
	}
	if errs := fieldErrors(err); errs != nil {
		gk := schema.GroupKind{Group: req.Kind.Group, Kind: req.Kind.Kind}
		return deny(apierrors.NewInvalid(gk, req.Name, errs).Status())
	}
	return deny(metav1.Status{Status: metav1.StatusFailure, Code: http.StatusForbidden,
		Reason: metav1.StatusReasonForbidden, Message: err.Error()})
}

// fieldErrors returns the field errors err is made of, or nil if it holds
// anything else.
func fieldErrors(err error) field.ErrorList {
	var agg utilerrors.Aggregate
	if errors.As(err, &agg) {
		var list field.ErrorList
		for _, e := range agg.Errors() {
			var fe *field.Error
			if !errors.As(e, &fe) {
				return nil
			}
			list = append(list, fe)
		}
		return list
	}
	var fe *field.Error
	if errors.As(err, &fe) {
		return field.ErrorList{fe}
	}
	return nil
}

// invalidRequest denies a review that cannot be answered as asked.
func invalidRequest(format string, args ...any) *admissionv1.AdmissionResponse {
	return deny(metav1.Status{Status: metav1.StatusFailure, Code: http.StatusBadRequest,
		Reason: metav1.StatusReasonBadRequest, Message: fmt.Sprintf(format, args...)})
}

// internalError denies a review the webhook failed to answer.
func internalError(err error) *admissionv1.AdmissionResponse {
	return deny(metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError,
		Reason: metav1.StatusReasonInternalError, Message: err.Error()})
}

func deny(status metav1.Status) *admissionv1.AdmissionResponse {
	status.Status = metav1.StatusFailure
	return &admissionv1.AdmissionResponse{Allowed: false, Result: &status}
}
