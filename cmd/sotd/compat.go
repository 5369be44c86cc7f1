package main

// The verbs the reference shell client looks for in a sotd.

import (
	"flag"
	"fmt"
	"io"

	"github.com/sotcomm/sotd/client"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/topology"
)

func runStdioBridge(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var endpoint string
	rest, ok := flags("stdio-bridge", args, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&endpoint, "endpoint", "", "the daemon's Unix socket")
	})
	if !ok || len(rest) > 0 {
		return usageErr(stderr, "stdio-bridge", rest)
	}
	var err error
	if endpoint == "" {
		var h home.Home
		if h, err = home.Resolve(); err == nil {
			endpoint = h.Socket(home.SelfHost())
		}
	} else {
		endpoint, err = client.Endpoint(endpoint)
	}
	if err == nil {
		err = client.Bridge(endpoint, stdin, stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "sotd stdio-bridge: %v\n", err)
		return 1
	}
	return 0
}

// runSessionSocketPath takes the session label the reference's newer client
// passes and prints the same socket for every label: on this box every
// session shares the one daemon.
func runSessionSocketPath(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 1 {
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
	if err == nil {
		var addr string
		if addr, err = client.RelayEndpoint(path); err == nil {
			fmt.Fprintln(stdout, addr)
			return 0
		}
	}
	fmt.Fprintf(stderr, "sotd topology relay-endpoint: %v\n", err)
	return 1
}
