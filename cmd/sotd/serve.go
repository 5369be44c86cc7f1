package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/sotcomm/sotd/daemon"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/service"
)

func runServe(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var httpAddr string
	rest, ok := flags("serve", args, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&httpAddr, "http", "", `the status page's loopback address, host:port; "off" serves none`)
	})
	if !ok || len(rest) > 0 {
		return usageErr(stderr, "serve", rest)
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	h, err := home.Resolve()
	if err != nil {
		fmt.Fprintf(stderr, "sotd serve: %v\n", err)
		return 1
	}
	host := home.SelfHost()
	d, err := daemon.New(daemon.Config{Home: h, Host: host, Socket: h.Socket(host), Log: log, HTTP: httpAddr})
	if err != nil {
		fmt.Fprintf(stderr, "sotd serve: %v\n", err)
		return 1
	}
	ctx, stop := service.Context(context.Background())
	defer stop()
	if err := d.Run(ctx); err != nil {
		fmt.Fprintf(stderr, "sotd serve: %v\n", err)
		return 1
	}
	return 0
}
