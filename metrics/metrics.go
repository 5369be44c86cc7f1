package metrics

import (
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Buckets for the waits on the filing path: an fsync or an uncontended lock is
// well under a millisecond, the protocol's inbox lock wait gives up at 2 s.
var diskBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2, 5}

// Buckets for a link's round trip: loopback and a LAN are under a millisecond,
// a WAN tens to hundreds, and a link slower than its 5 s heartbeat is about to
// be judged dead.
var rttBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}

// set is every sotd_ metric. It is built at first use, not at package init:
// every client verb runs in this binary, and building and registering the
// collectors would cost each whole-process send about a millisecond it never uses.
type set struct {
	reg                                *prometheus.Registry
	filed, noticesTyped, streamResyncs prometheus.Counter
	refused, linkReconnects            *prometheus.CounterVec
	lockWait, fsync                    prometheus.Histogram
	linkRTT                            *prometheus.HistogramVec
	linkOffset                         *prometheus.GaugeVec
}

var metrics = sync.OnceValue(func() *set {
	m := &set{reg: prometheus.NewRegistry()}
	m.filed = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "sotd_lines_filed_total",
		Help: "Lines appended to an inbox and fsynced.",
	})
	m.refused = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sotd_lines_refused_total",
		Help: "Lines refused, by the wire error code given to the sender.",
	}, []string{"code"})
	m.lockWait = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "sotd_inbox_lock_wait_seconds",
		Help:    "Time spent waiting for an inbox flock.",
		Buckets: diskBuckets,
	})
	m.fsync = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "sotd_fsync_seconds",
		Help:    "Time one inbox fsync took.",
		Buckets: diskBuckets,
	})
	m.linkReconnects = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sotd_link_reconnects_total",
		Help: "Times a link to a peer box was dialled again after it dropped.",
	}, []string{"peer"})
	// Links are labelled by the peer's box: only boxes hosts.toml pins are
	// admitted, so the series are bounded by its [host.*] tables.
	m.linkRTT = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "sotd_link_rtt_seconds",
		Help:    "Round trip of a link's heartbeat exchange, less the time the beat was held at the peer.",
		Buckets: rttBuckets,
	}, []string{"peer"})
	m.linkOffset = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "sotd_link_clock_offset_seconds",
		Help: "The peer box's clock minus this box's, as last measured on the link's heartbeats (wrong by at most half the fastest recent round trip).",
	}, []string{"peer"})
	m.noticesTyped = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "sotd_notices_typed_total",
		Help: "Mail notices typed into an agent's row.",
	})
	m.streamResyncs = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "sotd_stream_resyncs_total",
		Help: "Times a frontend event subscriber fell behind and was sent stream_resync and a fresh snapshot.",
	})
	m.reg.MustRegister(m.filed, m.refused, m.lockWait, m.fsync, m.linkReconnects, m.linkRTT, m.linkOffset, m.noticesTyped, m.streamResyncs)
	return m
})

// runtimeCollectors registers the Go and process collectors when /metrics is
// first served.
var runtimeCollectors sync.Once

// Filed counts n lines made durable in one append.
func Filed(n int) { metrics().filed.Add(float64(n)) }

// Refused counts one line refused with wire error code.
func Refused(code string) { metrics().refused.WithLabelValues(code).Inc() }

// LockWait records how long an inbox flock took to get.
func LockWait(d time.Duration) { metrics().lockWait.Observe(d.Seconds()) }

// Fsync records how long one fsync took.
func Fsync(d time.Duration) { metrics().fsync.Observe(d.Seconds()) }

// LinkReconnect counts one re-dial of the link to peer.
func LinkReconnect(peer string) { metrics().linkReconnects.WithLabelValues(peer).Inc() }

// LinkSample records one timing sample of the link to peer: its round trip,
// and the peer's clock offset as the link now reckons it.
func LinkSample(peer string, rtt, offset time.Duration) {
	m := metrics()
	m.linkRTT.WithLabelValues(peer).Observe(rtt.Seconds())
	m.linkOffset.WithLabelValues(peer).Set(offset.Seconds())
}

// NoticeTyped counts one mail notice typed into a row.
func NoticeTyped() { metrics().noticesTyped.Inc() }

// StreamResync counts one frontend subscriber sent stream_resync.
func StreamResync() { metrics().streamResyncs.Inc() }

// Handler serves every sotd_ metric (and the Go runtime's) in the Prometheus
// text format.
func Handler() http.Handler {
	m := metrics()
	runtimeCollectors.Do(func() {
		m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	})
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}
