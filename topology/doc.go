// Package topology reads hosts.toml, the one file that says which boxes make up
// a comm network, which of them is the hub, where each daemon listens for
// links and which identity each box must present.
//
// Every box reads its own copy. A box with no hosts.toml is a standalone hub;
// a file that is there but cannot be read or does not validate names no hub,
// because guessing one could give a folder two lock-manager writers (RoleOf).
//
// The grammar, in full:
//
//	hub = "<box>"            # required; the box every other box links to
//	[host.<box>]             # one table per box; <box> is [a-z0-9][a-z0-9._-]*
//	daemon   = true|false    # a sotd daemon runs there (default false)
//	frontend = true|false    # a frontend runs there (default false)
//	addr     = "host:port"   # where its daemon listens for links (QUIC, UDP); required for the hub
//	ws_addr  = "host:port"   # where it listens for WebSocket-over-TLS links (TCP) where UDP is blocked
//	key      = "<fingerprint>" # its pinned identity, the last field of `sotd id` on that box
//
// The hub must be listed with daemon = true, an addr and a key. Every box with
// daemon or frontend set needs a key: the hub checks each guest's certificate
// against its key and each guest checks the hub's, with no trust on first use,
// so a box without one could neither link nor be linked to. No two boxes share
// a key. Keys are opaque here: one token of printable ASCII.
//
// An unknown top-level key is an error, because a misspelt hub or host table
// would change who is hub; an unknown key inside a host table is a warning,
// so a newer file still loads on an older daemon. Every error and warning
// names its line.
package topology
