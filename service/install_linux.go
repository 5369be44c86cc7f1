package service

import (
	"fmt"
	"os"
	"path/filepath"
)

// FilePath is where Install writes the unit: the user's systemd folder under
// $XDG_CONFIG_HOME (default ~/.config).
func FilePath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("the systemd user folder is unknown (%w); set $HOME", err)
	}
	return filepath.Join(dir, "systemd", "user", Name+".service"), nil
}

func install(s Spec, o Options) error {
	if _, err := o.writeFile(s); err != nil {
		return err
	}
	return o.manage(
		step{args: []string{"systemctl", "--user", "daemon-reload"}},
		step{args: []string{"systemctl", "--user", "enable", "--now", Name}},
	)
}

func uninstall(o Options) error {
	p, err := FilePath()
	if err != nil || !o.installed(p) {
		return err
	}
	// Disabled while its file is there: systemd forgets a unit it cannot read.
	if err := o.manage(step{args: []string{"systemctl", "--user", "disable", "--now", Name}, mayFail: true}); err != nil {
		return err
	}
	if err := o.remove(p); err != nil {
		return err
	}
	return o.manage(step{args: []string{"systemctl", "--user", "daemon-reload"}})
}
