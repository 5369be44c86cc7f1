package main

import (
	"context"
	"fmt"
	"io"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/sotcomm/sotd/client"
	"github.com/sotcomm/sotd/mcpserver"
)

func runMCP(args []string, _ io.Reader, _, stderr io.Writer) int {
	if len(args) > 0 {
		return usageErr(stderr, "mcp", args)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	info, _ := debug.ReadBuildInfo()
	if err := mcpserver.Run(ctx, client.NewSession, buildVersion(info)); err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "sotd mcp: %v\n", err)
		return client.ExitFailed
	}
	return client.ExitOK
}
