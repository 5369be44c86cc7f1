// Package workspace is the daemon's rows: one backend made at start, the
// socket's row ops (workspace.*, pty.*, agent.join, session.watch) on it, the
// handles bound to rows in the registry, and the services that keep them:
// the liveness stamper (Stamp), the dialog watch (WatchDialogs) and the wake
// (WakeLoop). The daemon runs each under its supervisor.
package workspace
