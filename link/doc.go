// Package link is the transport between a guest daemon and its hub. It carries
// requests and control events; what the two ends do with them (filing, offering,
// the directory of handles) is theirs.
//
// A link is mutual TLS 1.3 with pinned keys (package identity): the hub admits a
// box only when hosts.toml pins its key, and a guest links only to the key it
// pins for the hub. Over QUIC (ALPN sot-comm/1) the guest opens one control
// stream; its first frame is hello (role link, host = the guest's box, which must
// be the box its key is pinned to, or the hub logs why and closes the link); then
// both ends send heartbeats on it, and the guest its directory events. A hello
// that says Ticks (wire.Hello.Ticks), answered so, is the guest's promise of a
// directory event on every registry poll, the full set first and an empty one
// when nothing changed (Conn.Ticks): the hub then waits for such an event
// rather than offer that box a line for a handle no directory names. Each
// heartbeat carries NTP's timestamps (wire.LinkBeat): its sender's clock, and
// the last beat it heard with how long it held it, so each end takes the
// link's round trip and the peer's clock offset from every beat that echoes
// one of its own (Conn.Health); a bare beat, an older peer's, is still a beat.
// Requests — a guest's forward, the hub's offer — go, when the hello asked for it
// (wire.Hello.Mux) and the hub's answer took it, on one stream per end: each end
// opens its own and writes its requests there, and the peer answers each on it
// as soon as its handler returns, in any order, matched by id, so a request held
// up by an inbox lock never delays another's answer. A request the caller gives
// up on is followed by a link.cancel event with its id, which ends its handler's
// ctx. A frame on that stream that does not decode ends the link, as nothing
// after it could be read. With a peer older than that, each request is a
// stream of its own (one request frame, one answer frame, both ends closed; a
// caller that gives up resets it). One stream per end spares each request a
// stream's opening, state and closing at both ends: most of a request's cost
// to a hub that offers a line to every box.
//
// A hello that asks for Mux may also ask for Items (wire.Hello.Items), and an
// answer that takes Mux may take it: then each end answers the items of the
// other's comm.file.batch as each finishes, once the batch has run 10 ms
// (wire.OpCommFileItems, on the stream its answer takes; BatchItems: those
// that finish together go in one frame), the batch's own answer still holding
// every item, so an item held up by an inbox lock or a silent box delays no
// other item's answer. Either end older than that answers a batch whole. A
// batch call out longer than batchSlow no longer holds one of the link's two
// batch calls, so the requests made meanwhile are not queued behind it.
//
// Choosing the transport (docs/routing.md tells it to users): a guest dials QUIC first. When the
// QUIC handshake does not complete within QUICWait (3 s; UDP blocked on the way)
// and hosts.toml gives the hub a ws_addr, it dials WebSocket over TLS there
// instead: the same pinned keys, the same envelopes, one WebSocket message each,
// requests and answers matched by envelope id on the one socket. A refusal (a key
// that does not match its pin, a refused hello) never falls back: it would be
// refused there too. Every reconnect tries QUIC again first, so a link that fell
// back returns to QUIC once UDP passes.
//
// A guest keeps its link with a Keeper, which makes one attempt per run; its
// supervisor runs it again on the Relink policy (package backoff, the one
// restart policy): after a link ends or a dial fails it waits 2 s, doubling to
// 60 s, each wait drawn from the upper half of its step (equal jitter), and
// starts again at 2 s once a link has come up. Every attempt re-reads
// hosts.toml and the key (Keeper.Resolve). A peer silent for 15 s (three heartbeats) is dead the
// moment its silence reaches that, not at the next beat; QUIC's idle timeout
// is the same 15 s, so whichever notices first says the same.
package link
