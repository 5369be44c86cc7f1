package metrics

import (
	"bufio"
	"math"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// buckets is how many upper bounds each histogram has, +Inf not counted.
const buckets = 15

// meta is what the text format says of a metric before its samples.
type meta struct{ name, help string }

// family is one metric and all its series, as the text format writes it.
type family interface {
	write(w *bufio.Writer)
}

type counter struct {
	meta
	n atomic.Uint64
}

func (c *counter) add(n uint64) { c.n.Add(n) }

func (c *counter) write(w *bufio.Writer) {
	header(w, c.meta, "counter")
	sample(w, c.name, "", "", "", float64(c.n.Load()))
}

// floatBits is a float64 updated atomically.
type floatBits struct{ bits atomic.Uint64 }

func (f *floatBits) load() float64   { return math.Float64frombits(f.bits.Load()) }
func (f *floatBits) store(v float64) { f.bits.Store(math.Float64bits(v)) }
func (f *floatBits) add(v float64) {
	for {
		old := f.bits.Load()
		if f.bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}

type gauge struct{ v floatBits }

func (g *gauge) set(v float64) { g.v.store(v) }

// histogram counts each observation in the first bucket whose upper bound is at
// least it (the last, +Inf, takes the rest); the text format's buckets are
// cumulative, so they are summed as they are written.
type histogram struct {
	meta
	upper  *[buckets]float64
	counts [buckets + 1]atomic.Uint64
	sum    floatBits
}

func (h *histogram) observe(v float64) {
	i, _ := slices.BinarySearch(h.upper[:], v)
	h.counts[i].Add(1)
	h.sum.add(v)
}

func (h *histogram) write(w *bufio.Writer) {
	header(w, h.meta, "histogram")
	h.samples(w, "", "")
}

// samples writes the buckets, sum and count of one series. The count is the
// buckets' total as read, so a scrape that races an observation still reads a
// +Inf bucket equal to the count.
func (h *histogram) samples(w *bufio.Writer, label, value string) {
	var total uint64
	for i := range h.counts {
		total += h.counts[i].Load()
		le := "+Inf"
		if i < buckets {
			le = formatFloat(h.upper[i])
		}
		sample(w, h.name+"_bucket", label, value, le, float64(total))
	}
	sample(w, h.name+"_sum", label, value, "", h.sum.load())
	sample(w, h.name+"_count", label, value, "", float64(total))
}

// vec is a metric's series by the value of its one label, made at first use.
type vec[T any] struct {
	mu     sync.RWMutex
	series map[string]*T
}

func (v *vec[T]) with(value string, mk func() *T) *T {
	v.mu.RLock()
	s := v.series[value]
	v.mu.RUnlock()
	if s != nil {
		return s
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if s = v.series[value]; s == nil {
		if v.series == nil {
			v.series = map[string]*T{}
		}
		s = mk()
		v.series[value] = s
	}
	return s
}

// each calls f for every series, by label value in order.
func (v *vec[T]) each(f func(value string, s *T)) {
	v.mu.RLock()
	values := make([]string, 0, len(v.series))
	for k := range v.series {
		values = append(values, k)
	}
	v.mu.RUnlock()
	slices.Sort(values)
	for _, k := range values {
		v.mu.RLock()
		s := v.series[k]
		v.mu.RUnlock()
		f(k, s)
	}
}

type counterVec struct {
	meta
	label string
	vec[atomic.Uint64]
}

type uintCounter struct{ *atomic.Uint64 }

func (c uintCounter) add(n uint64) { c.Add(n) }

func (c *counterVec) with(value string) uintCounter {
	return uintCounter{c.vec.with(value, func() *atomic.Uint64 { return new(atomic.Uint64) })}
}

func (c *counterVec) write(w *bufio.Writer) {
	header(w, c.meta, "counter")
	c.each(func(value string, n *atomic.Uint64) { sample(w, c.name, c.label, value, "", float64(n.Load())) })
}

type gaugeVec struct {
	meta
	label string
	vec[gauge]
}

func (g *gaugeVec) with(value string) *gauge {
	return g.vec.with(value, func() *gauge { return new(gauge) })
}

func (g *gaugeVec) write(w *bufio.Writer) {
	header(w, g.meta, "gauge")
	g.each(func(value string, s *gauge) { sample(w, g.name, g.label, value, "", s.v.load()) })
}

type histogramVec struct {
	meta
	label string
	upper *[buckets]float64
	vec[histogram]
}

func (h *histogramVec) with(value string) *histogram {
	return h.vec.with(value, func() *histogram { return &histogram{meta: h.meta, upper: h.upper} })
}

func (h *histogramVec) write(w *bufio.Writer) {
	header(w, h.meta, "histogram")
	h.each(func(value string, s *histogram) { s.samples(w, h.label, value) })
}

// serve writes every family, then the runtime's few: goroutines, heap, GC cycles
// (a profile is at /debug/pprof/ for anything deeper).
func serve(rw http.ResponseWriter, _ *http.Request) {
	rw.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w := bufio.NewWriter(rw)
	for _, f := range all {
		f.write(w)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	for _, g := range []struct {
		meta
		kind string
		v    float64
	}{
		{meta{"go_goroutines", "Number of goroutines that currently exist."}, "gauge", float64(runtime.NumGoroutine())},
		{meta{"go_memstats_heap_alloc_bytes", "Number of heap bytes allocated and still in use."}, "gauge", float64(ms.HeapAlloc)},
		{meta{"go_memstats_sys_bytes", "Number of bytes obtained from the system."}, "gauge", float64(ms.Sys)},
		{meta{"go_gc_cycles_total", "Number of completed GC cycles."}, "counter", float64(ms.NumGC)},
	} {
		header(w, g.meta, g.kind)
		sample(w, g.name, "", "", "", g.v)
	}
	w.Flush()
}

func header(w *bufio.Writer, m meta, kind string) {
	w.WriteString("# HELP " + m.name + " " + escape(m.help, false) + "\n")
	w.WriteString("# TYPE " + m.name + " " + kind + "\n")
}

// sample writes one line: name, its label (when named) and le (when not ""),
// and the value.
func sample(w *bufio.Writer, name, label, value, le string, v float64) {
	w.WriteString(name)
	if label != "" || le != "" {
		w.WriteByte('{')
		if label != "" {
			w.WriteString(label + `="` + escape(value, true) + `"`)
			if le != "" {
				w.WriteByte(',')
			}
		}
		if le != "" {
			w.WriteString(`le="` + le + `"`)
		}
		w.WriteByte('}')
	}
	w.WriteByte(' ')
	w.WriteString(formatFloat(v))
	w.WriteByte('\n')
}

// formatFloat writes a value as the text format does: shortest form, and
// +Inf, -Inf, NaN by name.
func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// escape writes s as the text format quotes it: a backslash and a newline
// escaped always, a double quote too inside a label value.
func escape(s string, quote bool) string {
	if !strings.ContainsAny(s, "\\\n\"") {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '"' && quote:
			b.WriteString(`\"`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
