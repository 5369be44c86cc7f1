package metrics

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/sotcomm/sotd/internal/raceexit" // exits without the race detector's second of sleep
)

// scrape reads /metrics as a real client does and returns each sample's value
// keyed by its name with labels, as the text format writes it.
func scrape(t *testing.T, srv *httptest.Server) map[string]float64 {
	t.Helper()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("content type %q, want the text format", ct)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("sample %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	if err := sc.Err(); err != nil && err != io.EOF {
		t.Fatal(err)
	}
	return out
}

func TestEveryRecorderMovesItsSample(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	tests := []struct {
		name   string
		record func()
		sample string
		by     float64
	}{
		{"filed", func() { Filed(3) }, "sotd_lines_filed_total", 3},
		{"refused", func() { Refused("no_live_session") }, `sotd_lines_refused_total{code="no_live_session"}`, 1},
		{"lock wait", func() { LockWait(3 * time.Millisecond) }, "sotd_inbox_lock_wait_seconds_count", 1},
		{"lock wait sum", func() { LockWait(2 * time.Second) }, "sotd_inbox_lock_wait_seconds_sum", 2},
		{"fsync", func() { Fsync(time.Millisecond) }, "sotd_fsync_seconds_count", 1},
		{"link reconnect", func() { LinkReconnect("nas") }, `sotd_link_reconnects_total{peer="nas"}`, 1},
		{"link rtt", func() { LinkSample("nas", 3*time.Millisecond, -2*time.Second) }, `sotd_link_rtt_seconds_count{peer="nas"}`, 1},
		{"link rtt sum", func() { LinkSample("nas", 250*time.Millisecond, 0) }, `sotd_link_rtt_seconds_sum{peer="nas"}`, 0.25},
		{"link rtt bucket", func() { LinkSample("nas", 3*time.Millisecond, 0) }, `sotd_link_rtt_seconds_bucket{peer="nas",le="0.005"}`, 1},
		{"notice typed", NoticeTyped, "sotd_notices_typed_total", 1},
		{"stream resync", StreamResync, "sotd_stream_resyncs_total", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := scrape(t, srv)[tc.sample]
			tc.record()
			after, ok := scrape(t, srv)[tc.sample]
			if !ok {
				t.Fatalf("%s is not served", tc.sample)
			}
			if got := after - before; got < tc.by-1e-9 || got > tc.by+1e-9 {
				t.Fatalf("%s moved by %v, want %v", tc.sample, got, tc.by)
			}
		})
	}
}

// The clock offset is a gauge: each sample replaces the last, per peer.
func TestLinkOffsetIsTheLastSample(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	for _, tc := range []struct {
		peer   string
		offset time.Duration
	}{
		{"ahead", 1500 * time.Millisecond},
		{"behind", -40 * time.Second},
		{"ahead", -250 * time.Millisecond}, // ahead's clock was stepped back
	} {
		LinkSample(tc.peer, time.Millisecond, tc.offset)
		sample := `sotd_link_clock_offset_seconds{peer="` + tc.peer + `"}`
		if got := scrape(t, srv)[sample]; got != tc.offset.Seconds() {
			t.Errorf("%s = %v after a sample of %s, want %v", sample, got, tc.offset, tc.offset.Seconds())
		}
	}
}

// The cheapness the filing path relies on: no allocation for the unlabelled
// recorders.
func TestRecordersDoNotAllocate(t *testing.T) {
	tests := []struct {
		name string
		f    func()
	}{
		{"Filed", func() { Filed(1) }},
		{"Fsync", func() { Fsync(time.Millisecond) }},
		{"LockWait", func() { LockWait(time.Millisecond) }},
		{"NoticeTyped", NoticeTyped},
	}
	for _, tc := range tests {
		if n := testing.AllocsPerRun(100, tc.f); n != 0 {
			t.Errorf("%s allocates %v times per call", tc.name, n)
		}
	}
}

func BenchmarkRefused(b *testing.B) {
	for b.Loop() {
		Refused("not_here")
	}
}

// A label value is written as the text format quotes it, whatever bytes a peer's
// name holds, and a histogram's buckets are cumulative up to its count.
func TestTextFormat(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	LinkSample(`a"b\c`+"\n", 3*time.Millisecond, 0)
	LinkSample(`a"b\c`+"\n", 30*time.Millisecond, 0)
	got := scrape(t, srv)
	series := `{peer="a\"b\\c\n"`
	for sample, want := range map[string]float64{
		`sotd_link_rtt_seconds_bucket` + series + `,le="0.0025"}`: 0,
		`sotd_link_rtt_seconds_bucket` + series + `,le="0.005"}`:  1,
		`sotd_link_rtt_seconds_bucket` + series + `,le="0.05"}`:   2,
		`sotd_link_rtt_seconds_bucket` + series + `,le="+Inf"}`:   2,
		`sotd_link_rtt_seconds_count` + series + `}`:              2,
		`sotd_link_clock_offset_seconds` + series + `}`:           0,
	} {
		if v, ok := got[sample]; !ok || v != want {
			t.Errorf("%s = %v (served: %v), want %v", sample, v, ok, want)
		}
	}
	if _, ok := got["go_goroutines"]; !ok {
		t.Error("go_goroutines is not served")
	}
}
