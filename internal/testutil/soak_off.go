//go:build !soak

package testutil

// Soak is set by the soak build tag (go test -tags soak): the long runs at
// full size (CONTRIBUTING.md, Tests and benchmarks). The default suite runs
// the same tests smaller.
const Soak = false
