package controller

import (
	"errors"
	"fmt"
)

// Values of AttrResult, one per outcome of a reconcile. Success, error and
// requeue_after are also the values of controller_runtime_reconcile_total's
// "result" label, which counts terminal errors and panics as errors, as
// controller-runtime does.
const (
	ResultSuccess      = "success"
	ResultRequeueAfter = "requeue_after"
	ResultError        = "error"
	ResultTerminal     = "terminal_error"
	ResultPanic        = "panic"
)

// outcome is what one reconcile came to: one of the Result* values. It is
// computed once, by outcomeOf, and decides what the queue, the metrics,
// the log and the span are told.
type outcome string

// outcomeOf classifies a reconcile's return values. An error wins over
// Result.RequeueAfter, which is ignored with an error.
func outcomeOf(result Result, err error) outcome {
	switch {
	case err != nil && IsTerminal(err):
		return ResultTerminal
	case err != nil && errors.As(err, new(*errPanic)):
		return ResultPanic
	case err != nil:
		return ResultError
	case result.RequeueAfter > 0:
		return ResultRequeueAfter
	default:
		return ResultSuccess
	}
}

// errPanic marks the error a recovered panic becomes.
type errPanic struct{ value any }

func (e *errPanic) Error() string { return fmt.Sprintf("panic in Reconcile: %v [recovered]", e.value) }
