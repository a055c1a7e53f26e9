package main

import (
	"context"
	"errors"

	"k8s.io/client-go/rest"
)

// startController runs ctrlkit's Deployment controller in this process,
// watching namespace ns, and returns a function that stops it.
//
// TEMPORARY: the deployment package's wiring has not landed yet; until it
// does, use -upstream.
func startController(ctx context.Context, cfg *rest.Config, ns string) (stop func() error, err error) {
	return nil, errors.New("ctrlkit's Deployment controller is not wired in yet: run with -upstream")
}
