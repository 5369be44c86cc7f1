package metrics

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Buckets for the waits on the filing path: an fsync or an uncontended lock is
// well under a millisecond, the protocol's inbox lock wait gives up at 2 s.
var diskBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2, 5}

var (
	reg = prometheus.NewRegistry()

	filed = newCounter(prometheus.CounterOpts{
		Name: "sotd_lines_filed_total",
		Help: "Lines appended to an inbox and fsynced.",
	})
	refused = newCounterVec(prometheus.CounterOpts{
		Name: "sotd_lines_refused_total",
		Help: "Lines refused, by the wire error code given to the sender.",
	}, "code")
	lockWait = newHistogram(prometheus.HistogramOpts{
		Name:    "sotd_inbox_lock_wait_seconds",
		Help:    "Time spent waiting for an inbox flock.",
		Buckets: diskBuckets,
	})
	fsync = newHistogram(prometheus.HistogramOpts{
		Name:    "sotd_fsync_seconds",
		Help:    "Time one inbox fsync took.",
		Buckets: diskBuckets,
	})
	linkRTT = newHistogramVec(prometheus.HistogramOpts{
		Name:    "sotd_link_rtt_seconds",
		Help:    "Round-trip time of a link's ping, by peer box.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
	}, "peer")
	linkReconnects = newCounterVec(prometheus.CounterOpts{
		Name: "sotd_link_reconnects_total",
		Help: "Times a link to a peer box was dialled again after it dropped.",
	}, "peer")
	noticesTyped = newCounter(prometheus.CounterOpts{
		Name: "sotd_notices_typed_total",
		Help: "Mail notices typed into an agent's row.",
	})
	streamResyncs = newCounter(prometheus.CounterOpts{
		Name: "sotd_stream_resyncs_total",
		Help: "Times a frontend event subscriber fell behind and was sent stream_resync and a fresh snapshot.",
	})
)

func init() {
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
}

func newCounter(o prometheus.CounterOpts) prometheus.Counter {
	c := prometheus.NewCounter(o)
	reg.MustRegister(c)
	return c
}

func newCounterVec(o prometheus.CounterOpts, label string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(o, []string{label})
	reg.MustRegister(c)
	return c
}

func newHistogram(o prometheus.HistogramOpts) prometheus.Histogram {
	h := prometheus.NewHistogram(o)
	reg.MustRegister(h)
	return h
}

func newHistogramVec(o prometheus.HistogramOpts, label string) *prometheus.HistogramVec {
	h := prometheus.NewHistogramVec(o, []string{label})
	reg.MustRegister(h)
	return h
}

// Filed counts n lines made durable in one append.
func Filed(n int) { filed.Add(float64(n)) }

// Refused counts one line refused with wire error code.
func Refused(code string) { refused.WithLabelValues(code).Inc() }

// LockWait records how long an inbox flock took to get.
func LockWait(d time.Duration) { lockWait.Observe(d.Seconds()) }

// Fsync records how long one fsync took.
func Fsync(d time.Duration) { fsync.Observe(d.Seconds()) }

// LinkRTT records one ping round trip to peer.
func LinkRTT(peer string, d time.Duration) { linkRTT.WithLabelValues(peer).Observe(d.Seconds()) }

// LinkReconnect counts one re-dial of the link to peer.
func LinkReconnect(peer string) { linkReconnects.WithLabelValues(peer).Inc() }

// NoticeTyped counts one mail notice typed into a row.
func NoticeTyped() { noticesTyped.Inc() }

// StreamResync counts one frontend subscriber sent stream_resync.
func StreamResync() { streamResyncs.Inc() }

// Handler serves every sotd_ metric (and the Go runtime's) in the Prometheus
// text format.
func Handler() http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg})
}
