//go:build !linux

package integration

import "errors"

func runSession() error { return errors.New("session processes run on Linux only") }
