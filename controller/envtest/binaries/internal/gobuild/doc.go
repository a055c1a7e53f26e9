// Package gobuild builds the control plane's programs with the go command
// from the Go module proxy: it finds the go command, asks it for modules,
// and builds every missing program in one go build, so that the packages
// they share compile once, printing measured progress (elapsed time, the
// packages compiled so far and the one go build is on, each program as it
// is linked).
package gobuild
