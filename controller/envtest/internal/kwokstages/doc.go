// Package kwokstages turns kwok's stage files (from the kwok module, or the
// stage-fast.yaml of its release) into the kwok configuration an
// environment runs: pods become Ready after a chosen delay, except stuck
// ones and those with an unpullable image.
package kwokstages
