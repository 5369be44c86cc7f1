// Package network is the daemon's part in a network of boxes, by the role
// hosts.toml gives it: a hub serves links and routes what its folder does not
// hold (hub.Router), a guest keeps a link to each hub and tells each which
// handles it holds (its directory), and every box keeps its share of the
// network view, its links' state and the receipts across boxes. It owns a
// comm.file's route: filed here, forwarded through a hub, or offered on.
//
// The daemon runs it on a Config of values and an Endpoint of what it needs
// back (the group commit, the inbox lock's record), starts its Services under
// its supervisor, and answers its socket ops (comm.file, net.list,
// link.status, comm.receipts) with File, List, Status and Receipts.
package network
