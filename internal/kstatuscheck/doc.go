// Package kstatuscheck checks controllerutil's kstatus helpers against
// kstatus itself (sigs.k8s.io/cli-utils/pkg/kstatus/status), the library
// kpt, Flux and Config Sync compute a resource's status with. It is a
// nested module so that cli-utils stays out of ctrlkit's go.mod; it has
// tests only.
package kstatuscheck
