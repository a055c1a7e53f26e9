# The README's commands. Everything here works on a fresh machine with Go installed:
# the local control plane's binaries are built from the Go module proxy on first use.
GO ?= go
# Nested modules: peers and upstream live outside the library's import graph;
# internal/envtestuser uses controller/envtest as a user's module would;
# internal/tools pins controller-gen (go generate) and checks the generated files are fresh;
# internal/operatoruser is an operator module written from examples/README.md's CRD section;
# internal/kstatuscheck checks controllerutil's conditions with cli-utils' kstatus.
NESTED := internal/benchmarks internal/upstreamcheck internal/cpbuild internal/envtestuser internal/tools internal/operatoruser internal/kstatuscheck
E2E_TIMEOUT ?= 45m

.PHONY: all demo test check vet sizes unit upstream upstream-long e2e conformance bench fuzz cluster scalebench scalebench-shards scalebench-memory scalebench-neighbours

all: test

## demo: start a local control plane, run our Deployment controller in-process and roll a Deployment.
demo:
	$(GO) run ./examples/demo

## test: what CI runs: gofmt and vet, race-enabled unit tests, the cross-checks against
## kube-controller-manager's own code, then the e2e tests on a local control plane.
test: vet unit upstream e2e

## check: the fast part of test (no control plane).
check: vet unit

## sizes: no tracked file over 1 MiB: build outputs (binaries, profiles) belong in .gitignore.
sizes:
	@big=$$(git ls-files -z | xargs -0 -r stat -c '%s %n' | awk '$$1 > 1048576 {print "  " $$2 " (" $$1 " bytes)"}'); \
	  if [ -n "$$big" ]; then echo "tracked files over 1 MiB:"; echo "$$big"; exit 1; fi

vet: sizes
	@files=$$(git ls-files '*.go'); out=$$(gofmt -l $$files); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags e2e ./controller/envtest/... ./controller/storagemigration/... ./internal/e2e/... ./examples/crd-operator/...
	@for m in $(NESTED); do echo "go vet ($$m)"; (cd $$m && $(GO) vet ./...) || exit 1; done

unit:
	$(GO) test -race -count=1 ./...

## upstream: our Deployment logic against k8s.io/kubernetes v1.37.2 (hash, sync decisions,
## 1000 random worlds); also compiles and runs the benchmark module's tests (no benchmarks),
## internal/tools's check that the files controller-gen generates are committed fresh, and the
## kstatus cross-check of controllerutil's conditions.
upstream:
	cd internal/upstreamcheck && $(GO) test -count=1 ./...
	cd internal/tools && $(GO) test -count=1 ./...
	cd internal/benchmarks && $(GO) test -count=1 -run . ./...
	cd internal/kstatuscheck && $(GO) test -race -count=1 ./...

## upstream-long: the randomized differential test over WORLDS random worlds from seed SEED
## (20000 worlds: 10 to 15 minutes on two cores). A difference names the seed that replays it.
WORLDS ?= 20000
SEED ?= 1
upstream-long:
	cd internal/upstreamcheck && $(GO) test -count=1 -timeout 6h -run '^TestRandomWorldsMatchUpstream$$' -v . -worlds $(WORLDS) -seed $(SEED)

## e2e: the tests on a local control plane: ctrlkit's own (e2e tag) and those of
## internal/envtestuser and internal/operatoruser, separate modules that use ctrlkit like a user's.
e2e:
	$(GO) run ./internal/cmd/localcluster build
	@# internal/envtestuser's tests run alongside ctrlkit's: both mostly wait on their own
	@# control planes. Its output is printed once both are done.
	@out=$$(mktemp); \
	  (cd internal/envtestuser && $(GO) test -race -count=1 -timeout $(E2E_TIMEOUT) ./... >$$out 2>&1 && \
	   cd ../operatoruser && $(GO) test -race -count=1 -timeout $(E2E_TIMEOUT) ./... >>$$out 2>&1) & user=$$!; \
	  $(GO) test -tags e2e -race -count=1 -timeout $(E2E_TIMEOUT) ./controller/envtest/... ./controller/storagemigration/... ./internal/e2e/... ./examples/crd-operator/...; rc=$$?; \
	  wait $$user; urc=$$?; echo "internal/envtestuser, internal/operatoruser:"; cat $$out; rm -f $$out; \
	  [ $$rc -eq 0 ] && [ $$urc -eq 0 ]

## conformance: Kubernetes' own "[sig-apps] Deployment" e2e specs (k8s.io/kubernetes/test/e2e at
## the pinned version), against examples/deployment-controller and against kube-controller-manager's
## Deployment controller; fails when ours fails a spec upstream passes. Not part of test. The first
## run builds the e2e test binary (several minutes) and caches it with the control plane's binaries.
conformance:
	$(GO) run ./internal/cmd/localcluster build
	$(GO) run ./internal/cmd/conformance

## bench: side-by-side benchmarks against client-go and controller-runtime.
bench:
	cd internal/benchmarks && $(GO) test -run '^$$' -bench Workqueue -benchmem -benchtime=3x -count=3 .
	cd internal/benchmarks && $(GO) test -run '^$$' -bench ControllerEventsToReconciles -benchtime=100000x -count=3 .
	cd internal/benchmarks && $(GO) test -run '^$$' -bench RealisticReconciles -benchtime=1x -count=5 .
	cd internal/benchmarks && $(GO) test -run '^$$' -bench EnvironmentStart -benchtime=5x -count=1 -timeout 60m .
	cd internal/benchmarks && $(GO) test -run '^$$' -bench WebhookValidate -benchtime=40x -count=2 .

## fuzz: the workqueue fuzz test for a minute (its seed corpus runs in every `make test`).
fuzz:
	$(GO) test ./workqueue -run '^$$' -fuzz FuzzQueue -fuzztime 1m

## cluster: a local control plane for people; prints its kubeconfig, runs until Ctrl-C.
cluster:
	$(GO) run ./internal/cmd/localcluster

## scalebench: 1000 Deployments x 3 replicas, ours against kube-controller-manager's, 3 alternating pairs, each run on a fresh local control plane.
## LOAD=1 runs every phase beside a busy loop per core (the controlled load of issue 48).
scalebench:
	$(GO) run ./internal/cmd/scalebench pairs -n 1000 -r 3 -pairs 3 $(if $(LOAD),-load)

## scalebench-shards: 1000 x 3 over 300 namespaces, our controller as a ring of 1, then of 3 replica processes.
scalebench-shards:
	$(GO) run ./internal/cmd/scalebench shards -n 1000 -r 3 -namespaces 300 -replicas 3

## scalebench-neighbours: 300 x 1 Deployments rolled in namespace busy while 20 are created in quiet, one every 0.5 s,
## under kube-controller-manager's default client limit (20 QPS, burst 30): ours, upstream's and ours without
## namespace lanes, 3 groups of runs on fresh control planes. LOAD=1 runs every phase beside a busy loop per core.
scalebench-neighbours:
	$(GO) run ./internal/cmd/scalebench neighbours -n 300 -r 1 -quiet 20 -pairs 3 $(if $(LOAD),-load)

## scalebench-memory: 1000 x 10 over 20 namespaces, created then rolled out (issue 36's burst); ours and kube-controller-manager's Deployment controller, each after its burst and restarted; 3 pairs (about 2 hours 15 minutes; add -rollout=false by hand for the creates alone, about an hour).
scalebench-memory:
	$(GO) run ./internal/cmd/scalebench memory -n 1000 -r 10 -namespaces 20 -runs 3
