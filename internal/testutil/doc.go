// Package testutil holds the helpers ctrlkit's own tests share: waiting for
// a condition to hold, and checking that one keeps holding. It is internal:
// users' tests use their own framework's helpers.
package testutil
