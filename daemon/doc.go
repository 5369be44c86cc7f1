// Package daemon is `sotd serve`: the box's local endpoint. It listens on a Unix
// socket in the comm home that only its own OS user may use, admits a connection
// only after a hello it accepts, and files comm.file requests into this home's
// inboxes by the same rules as a client's own append (package mail), so "filed"
// means the same on every route: the line is on disk before the answer.
//
// Concurrent requests for one inbox are group-committed: one committer per inbox
// takes every request waiting and files them under one inbox lock and one fsync,
// and each request is answered when its batch is durable.
package daemon
