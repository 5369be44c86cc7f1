//go:build soak

package integration

const soak = true
