//go:build soak

package testutil

const Soak = true
