package main

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/sotcomm/sotd/daemon"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/identity"
	"github.com/sotcomm/sotd/topology"
)

func init() {
	verbs["id"] = verb{"print this box's name and key fingerprint", `
usage: sotd id

Prints this box's name and the fingerprint of its key, making the key at the
first run. The fingerprint is the last field of the last line, exactly as
hosts.toml's key = "..." takes it on every other box.`, runID}
	verbs["lock-manager"] = verb{"replace the folder's inbox-lock-manager record", `
usage: sotd lock-manager reset

Replaces inbox-lock-manager with this box's own inbox lock manager. It runs only
on the folder's hub, and only while no daemon runs on the folder (on any box
that shares it): every daemon holds run/daemons.lock shared, and the reset takes
it exclusively without waiting. Use it when the hub logs that another machine
wrote the record.`, runLockManager}
}

func runID(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		return usageErr(stderr, "id", args)
	}
	h, err := home.Resolve()
	if err != nil {
		fmt.Fprintf(stderr, "sotd id: %v\n", err)
		return 1
	}
	id, err := identity.Load(h, home.SelfHost())
	if err != nil {
		fmt.Fprintf(stderr, "sotd id: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, id.Describe())
	return 0
}

func runLockManager(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 || args[0] != "reset" {
		return usageErr(stderr, "lock-manager", args)
	}
	h, err := home.Resolve()
	if err != nil {
		fmt.Fprintf(stderr, "sotd lock-manager reset: %v\n", err)
		return 1
	}
	hosts, err := topology.Path()
	if err != nil {
		hosts = "" // no place for one: a standalone hub
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	done, err := daemon.ResetLockManager(h, home.SelfHost(), hosts, log)
	if err != nil {
		fmt.Fprintf(stdout, "FAILED: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, done)
	return 0
}
