package metrics

import (
	"net/http"
	"time"
)

// Buckets for the waits on the filing path: an fsync or an uncontended lock is
// well under a millisecond, the protocol's inbox lock wait gives up at 2 s.
var diskBuckets = &[buckets]float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2, 5}

// Buckets for a link's round trip: loopback and a LAN are under a millisecond,
// a WAN tens to hundreds, and a link slower than its 5 s heartbeat is about to
// be judged dead.
var rttBuckets = &[buckets]float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}

var (
	filed = &counter{meta: meta{
		name: "sotd_lines_filed_total",
		help: "Lines appended to an inbox and fsynced.",
	}}
	refused = &counterVec{meta: meta{
		name: "sotd_lines_refused_total",
		help: "Lines refused, by the wire error code given to the sender.",
	}, label: "code"}
	lockWait = &histogram{meta: meta{
		name: "sotd_inbox_lock_wait_seconds",
		help: "Time spent waiting for an inbox flock.",
	}, upper: diskBuckets}
	fsync = &histogram{meta: meta{
		name: "sotd_fsync_seconds",
		help: "Time one inbox fsync took.",
	}, upper: diskBuckets}
	linkReconnects = &counterVec{meta: meta{
		name: "sotd_link_reconnects_total",
		help: "Times a link to a peer box was dialled again after it dropped.",
	}, label: "peer"}
	// Links are labelled by the peer's box: only boxes hosts.toml pins are
	// admitted, so the series are bounded by its [host.*] tables.
	linkRTT = &histogramVec{meta: meta{
		name: "sotd_link_rtt_seconds",
		help: "Round trip of a link's heartbeat exchange, less the time the beat was held at the peer.",
	}, label: "peer", upper: rttBuckets}
	linkOffset = &gaugeVec{meta: meta{
		name: "sotd_link_clock_offset_seconds",
		help: "The peer box's clock minus this box's, as last measured on the link's heartbeats (wrong by at most half the fastest recent round trip).",
	}, label: "peer"}
	noticesTyped = &counter{meta: meta{
		name: "sotd_notices_typed_total",
		help: "Mail notices typed into an agent's row.",
	}}
	streamResyncs = &counter{meta: meta{
		name: "sotd_stream_resyncs_total",
		help: "Times a frontend event subscriber fell behind and was sent stream_resync and a fresh snapshot.",
	}}
)

// all is every sotd_ metric in the order Handler writes them.
var all = []family{filed, refused, lockWait, fsync, linkReconnects, linkRTT, linkOffset, noticesTyped, streamResyncs}

// Filed counts n lines made durable in one append.
func Filed(n int) { filed.add(uint64(n)) }

// Refused counts one line refused with wire error code.
func Refused(code string) { refused.with(code).add(1) }

// LockWait records how long an inbox flock took to get.
func LockWait(d time.Duration) { lockWait.observe(d.Seconds()) }

// Fsync records how long one fsync took.
func Fsync(d time.Duration) { fsync.observe(d.Seconds()) }

// LinkReconnect counts one re-dial of the link to peer.
func LinkReconnect(peer string) { linkReconnects.with(peer).add(1) }

// LinkSample records one timing sample of the link to peer: its round trip,
// and the peer's clock offset as the link now reckons it.
func LinkSample(peer string, rtt, offset time.Duration) {
	linkRTT.with(peer).observe(rtt.Seconds())
	linkOffset.with(peer).set(offset.Seconds())
}

// NoticeTyped counts one mail notice typed into a row.
func NoticeTyped() { noticesTyped.add(1) }

// StreamResync counts one frontend subscriber sent stream_resync.
func StreamResync() { streamResyncs.add(1) }

// Handler serves every sotd_ metric, and a few of the Go runtime's, in the
// Prometheus text format (version 0.0.4).
func Handler() http.Handler { return http.HandlerFunc(serve) }
