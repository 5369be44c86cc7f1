//go:build !windows

package topology

import (
	"errors"
	"os"
	"path/filepath"
)

// defaultPath is $XDG_CONFIG_HOME/sot/hosts.toml, else ~/.config/sot/hosts.toml,
// on macOS too: one place on every Unix, rather than macOS's Application Support.
// A relative $XDG_CONFIG_HOME is ignored, as the XDG spec asks.
func defaultPath() (string, error) {
	if x := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "sot", "hosts.toml"), nil
	}
	u, err := os.UserHomeDir()
	if err != nil {
		return "", errors.New("$XDG_CONFIG_HOME is unset and the user's home is unknown")
	}
	return filepath.Join(u, ".config", "sot", "hosts.toml"), nil
}
