// Package web is sotd's frontend door: a loopback HTTP listener that serves the
// live status page, the WebSocket API for frontend programs (/v1/ws) and the
// Prometheus metrics (/metrics). Every request carries the home's token.
//
// The WebSocket speaks the daemon socket's envelopes, one per text message. A
// frontend says hello with role fe and is named fe@<host> (fe@<host>#2 for the
// second on one box); it may send UI notifications to every connection
// (agent.send with an empty to), commands to one frontend (fe.command.send),
// query the workspace and the registry, and subscribe to the change feed: a
// snapshot, then live events, and stream_resync plus a fresh snapshot if it
// falls behind. The package reads nothing of the daemon's own: what it shows
// comes through Backend, so the daemon decides what the truth is.
package web
