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

func init() {
	verbs["mcp"] = verb{"serve the mail verbs as MCP tools over stdio", `
usage: sotd mcp

An MCP server on stdin and stdout with the tools send (to or broadcast, text),
poll, list, status (verb, text) and sent (to). Each call runs the verb the CLI
runs, in this process's environment and folder, so it acts as the same handle
and answers with the same lines; a non-zero exit (FAILED, a busy inbox) is a
tool error with those lines. Register it with Claude Code by
  claude mcp add --scope user sot-comm -- sotd mcp
or by "sotd hooks install --claude", which adds it to ~/.claude.json.`, runMCP}
}

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
