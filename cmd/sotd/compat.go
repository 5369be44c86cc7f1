package main

// The verbs the reference shell client looks for in a sotd.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"syscall"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/topology"
)

func init() {
	verbs["stdio-bridge"] = verb{"pipe stdin and stdout to a daemon's socket", `
usage: sotd stdio-bridge [--endpoint SOCKET]

Connects to the daemon's Unix socket (default this box's, as
sotd session-socket-path prints it), copies stdin to it and its answers to
stdout. At the end of stdin it stops sending and copies answers until the daemon
closes; when the daemon closes first it stops. Exit 1, with the reason on
stderr, when nothing answers at the endpoint.`, runStdioBridge}
	verbs["session-socket-path"] = verb{"print this box's daemon socket path", `
usage: sotd session-socket-path

Prints the Unix socket this box's daemon listens on: $SOT_SOCKET, else
run/<host>/sotd.sock in the comm home.`, runSessionSocketPath}
	verbs["topology"] = verb{"answer questions about hosts.toml", `
usage: sotd topology relay-endpoint

relay-endpoint prints the hub's link address (its addr in hosts.toml). With no
hosts.toml this box is a standalone hub and there is no relay: it prints
nothing and exits 1, as it does when hosts.toml does not load.`, runTopology}
}

func runStdioBridge(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var endpoint string
	rest, ok := flags("stdio-bridge", args, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&endpoint, "endpoint", "", "the daemon's Unix socket")
	})
	if !ok || len(rest) > 0 {
		return usageErr(stderr, "stdio-bridge", rest)
	}
	if endpoint == "" {
		h, err := home.Resolve()
		if err != nil {
			fmt.Fprintf(stderr, "sotd stdio-bridge: %v\n", err)
			return 1
		}
		endpoint = h.Socket(home.SelfHost())
	}
	c, err := net.Dial("unix", endpoint)
	if err != nil {
		fmt.Fprintf(stderr, "sotd stdio-bridge: the daemon did not answer at %s (%v); start it with sotd serve\n", endpoint, err)
		return 1
	}
	conn := c.(*net.UnixConn)
	defer conn.Close()
	// Stdin may never end (a terminal): its copier is left blocked on it when
	// the daemon closes first, and ends with the process.
	sent := make(chan error, 1)
	go func() {
		_, err := io.Copy(conn, stdin)
		conn.CloseWrite()
		sent <- err
	}()
	if _, err := io.Copy(stdout, conn); err != nil && !errors.Is(err, net.ErrClosed) {
		fmt.Fprintf(stderr, "sotd stdio-bridge: reading from %s: %v\n", endpoint, err)
		return 1
	}
	select {
	case err := <-sent:
		if err != nil && !errors.Is(err, net.ErrClosed) && !isBrokenPipe(err) {
			fmt.Fprintf(stderr, "sotd stdio-bridge: sending to %s: %v\n", endpoint, err)
			return 1
		}
	default:
	}
	return 0
}

// isBrokenPipe is a send the daemon stopped reading: it closed first, which
// ends the bridge as it should.
func isBrokenPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)
}

func runSessionSocketPath(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		return usageErr(stderr, "session-socket-path", args)
	}
	h, err := home.Resolve()
	if err != nil {
		fmt.Fprintf(stderr, "sotd session-socket-path: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, h.Socket(home.SelfHost()))
	return 0
}

func runTopology(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 || args[0] != "relay-endpoint" {
		return usageErr(stderr, "topology", args)
	}
	path, err := topology.Path()
	if err != nil {
		fmt.Fprintf(stderr, "sotd topology relay-endpoint: %v\n", err)
		return 1
	}
	t, _, err := topology.Load(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(stderr, "sotd topology relay-endpoint: there is no hosts.toml at %s, so this box is a standalone hub and has no relay endpoint\n", path)
		return 1
	case err != nil:
		fmt.Fprintf(stderr, "sotd topology relay-endpoint: %v; with hosts.toml unusable no box is the hub, so there is no relay endpoint\n", err)
		return 1
	}
	hub, _ := t.HubHost()
	fmt.Fprintln(stdout, hub.Addr)
	return 0
}
