package topology

import (
	"errors"
	"os"
	"path/filepath"
)

// defaultPath is %LOCALAPPDATA%\sot\config\hosts.toml: the machine's own
// profile, not the roaming one, since each box names its own hub.
func defaultPath() (string, error) {
	d := os.Getenv("LOCALAPPDATA")
	if d == "" {
		return "", errors.New("%LOCALAPPDATA% is unset")
	}
	return filepath.Join(d, "sot", "config", "hosts.toml"), nil
}
