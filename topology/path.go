package topology

import (
	"fmt"
	"os"
)

// EnvHosts names hosts.toml's path, overriding the platform's default.
const EnvHosts = "SOT_HOSTS"

// Path is where hosts.toml is read from: $SOT_HOSTS, else the platform's
// default (defaultPath). It only names the file; Load says whether it is there.
func Path() (string, error) {
	if p := os.Getenv(EnvHosts); p != "" {
		return p, nil
	}
	p, err := defaultPath()
	if err != nil {
		return "", fmt.Errorf("no hosts.toml location: %w; set $%s to its path", err, EnvHosts)
	}
	return p, nil
}
