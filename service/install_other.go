//go:build !linux && !darwin && !windows

package service

import (
	"fmt"
	"runtime"
)

// FilePath has no answer where sotd knows no service manager.
func FilePath() (string, error) { return "", errNoManager() }

func install(Spec, Options) error { return errNoManager() }
func uninstall(Options) error     { return errNoManager() }

func errNoManager() error {
	return fmt.Errorf("sotd knows no service manager on %s; run sotd serve under your own (sotd service print --os linux shows a systemd unit to start from)", runtime.GOOS)
}
