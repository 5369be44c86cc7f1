package service

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// FilePath is where Install writes the LaunchAgent.
func FilePath() (string, error) {
	u, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("the LaunchAgents folder is unknown (%w); set $HOME", err)
	}
	return filepath.Join(u, "Library", "LaunchAgents", Label+".plist"), nil
}

// domain is this user's login session, where a LaunchAgent runs.
func domain() string { return "gui/" + strconv.Itoa(os.Getuid()) }

// bootout stops and unloads the job; it fails when none is loaded, which is
// nothing to undo.
func bootout() step {
	return step{args: []string{"launchctl", "bootout", domain() + "/" + Label}, mayFail: true}
}

func install(s Spec, o Options) error {
	p, err := o.writeFile(s)
	if err != nil {
		return err
	}
	// A job loaded from an older file keeps running it until it is booted out.
	return o.manage(bootout(), step{args: []string{"launchctl", "bootstrap", domain(), p}})
}

func uninstall(o Options) error {
	p, err := FilePath()
	if err != nil || !o.installed(p) {
		return err
	}
	if err := o.manage(bootout()); err != nil {
		return err
	}
	return o.remove(p)
}
