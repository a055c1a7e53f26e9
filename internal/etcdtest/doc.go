// Package etcdtest reads what etcd itself holds, for ctrlkit's e2e tests
// that must see past the API server: at which version a custom resource is
// stored, before and after a storage migration. It talks to the local
// control plane's etcd through its v3 JSON gateway
// (envtest.Environment.EtcdURL), where custom resources are stored as JSON.
package etcdtest
