// Package operatoruser is a module of its own, written from the "Your own
// CRD: markers, go generate, apply" section of examples/README.md as an
// operator author would: a Greeting kind with kubebuilder markers
// (api/v1), controller-gen pinned as a tool in go.mod, and `go generate`
// writing the deep copies, config/crd and config/rbac. It requires
// github.com/ctrlkit/ctrlkit, replaced by this checkout.
//
// Its test starts an API-server-only envtest with config/crd installed,
// runs the controller and checks the generated schema's validation and
// defaults. Run it with
//
//	cd internal/operatoruser && go generate ./... && go test -count=1 ./...
//
// The greeter's permissions, next to the controller:
//
// +kubebuilder:rbac:groups=example.com,resources=greetings,verbs=list;watch
// +kubebuilder:rbac:groups=example.com,resources=greetings/status,verbs=update
package operatoruser

//go:generate go tool controller-gen object paths=./... crd rbac:roleName=greeter output:crd:dir=config/crd output:rbac:dir=config/rbac
