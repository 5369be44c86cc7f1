package service

import (
	"io"
	"os/exec"
)

// Options is how Install and Uninstall act.
type Options struct {
	DryRun bool      // say what would be written and run, and change nothing
	Out    io.Writer // what was done, and what is left to run by hand
	// Run runs one service-manager command with its output on Out; nil runs it
	// for real. Tests record instead: a container has no user service manager.
	Run func(name string, args ...string) error
	// LookPath finds a command; nil is exec.LookPath.
	LookPath func(string) (string, error)
	// Stdin is where Windows reads the password of the account the service
	// runs as: the installing user's, so the daemon serves that user's home.
	Stdin io.Reader
}

func (o Options) withDefaults() Options {
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.LookPath == nil {
		o.LookPath = exec.LookPath
	}
	if o.Run == nil {
		out := o.Out
		o.Run = func(name string, args ...string) error {
			c := exec.Command(name, args...)
			c.Stdout, c.Stderr = out, out
			return c.Run()
		}
	}
	return o
}

// Install writes this OS's service file for s and has the service manager
// start it, or says what to run where it cannot.
func Install(s Spec, o Options) error { return install(s, o.withDefaults()) }

// Uninstall stops the service and removes what Install made.
func Uninstall(o Options) error { return uninstall(o.withDefaults()) }
