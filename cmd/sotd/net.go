package main

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/identity"
	"github.com/sotcomm/sotd/presence"
	"github.com/sotcomm/sotd/topology"
)

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
	done, err := presence.ResetLockManager(h, home.SelfHost(), hosts, log)
	if err != nil {
		fmt.Fprintf(stdout, "FAILED: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, done)
	return 0
}
