//go:build !soak

package integration

// soak is set by the soak build tag (go test -tags soak ./integration/): the
// long runs at full size. The default suite runs the same tests smaller.
const soak = false
