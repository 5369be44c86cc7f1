// Package daemon is `sotd serve`: the box's local endpoint. It listens on a Unix
// socket in the comm home that only its own OS user may use, admits a connection
// only after a hello it accepts, and files comm.file requests into this home's
// inboxes by the same rules as a client's own append (package mail), so "filed"
// means the same on every route: the line is on disk before the answer.
//
// Concurrent requests for one inbox are group-committed: one committer per inbox
// takes every request waiting and files them under one inbox lock and one fsync,
// and each request is answered when its batch is durable.
//
// With a hosts.toml the daemon also has a role among boxes (package
// internal/network): the hub serves links from the boxes it pins and routes
// what its own folder does not hold (package hub); a guest keeps a link to its
// hub, tells it which handles it holds, forwards what it cannot file, and files
// the hub's offers for its own handles. The network decides each comm.file's
// route and files here through the daemon's group commit (network.Endpoint).
// Its parts are services under a supervisor that restarts a failing one with
// backoff, and Run waits for all of them.
//
// The socket's ops are one table (optable.go). The daemon's other parts are
// packages under internal/, each run under the supervisor: network (the role
// among boxes, above), workspace (the rows, their ops, the liveness stamper,
// the dialog watch and the wake), page (the status page's model, which reads
// the daemon through page.Source), viewdiff (when two pictures of an entry or
// a row read the same), regcache (the registry's last parse, which every
// reader here shares) and refuse (the refusals they share).
//
// Everything runs under Run's context: the services, each connection, and each
// request under its connection's context, which also ends when the client hangs
// up, so what a request waits on from another box (a forward, an offer, a
// receipts fan-out) is given up with it.
package daemon
