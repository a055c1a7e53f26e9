// Package childproc holds what the project's process runners share (the
// local control plane of controller/envtest, the e2e tests' replicas,
// scalebench's replicas): the attributes that keep a child from outliving
// the process that started it, and a Process that stops a child within a
// bound: SIGTERM, SIGKILL after a grace period, and its process group
// emptied.
package childproc
