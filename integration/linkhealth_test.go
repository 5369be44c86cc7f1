package integration

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/doctor"
	"github.com/sotcomm/sotd/internal/testutil"
)

// doctorOn runs `sotd doctor --json` on b and returns its report and exit code.
func doctorOn(t *testing.T, b *box) (doctor.Report, int) {
	t.Helper()
	r := b.run("", "", "doctor", "--json")
	var rep doctor.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("sotd doctor --json printed %q (exit %d, stderr %q): %v", r.stdout, r.code, r.stderr, err)
	}
	return rep, r.code
}

func checkOf(t *testing.T, rep doctor.Report, name string) doctor.Check {
	t.Helper()
	for _, c := range rep.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("doctor ran no %q check: %+v", name, rep.Checks)
	return doctor.Check{}
}

// doctorUntil runs doctor on b until ok says its report is the one awaited.
func doctorUntil(t *testing.T, b *box, within time.Duration, what string, ok func(doctor.Report, int) bool) (doctor.Report, int) {
	t.Helper()
	var rep doctor.Report
	var code int
	if !testutil.Within(within, func() bool { rep, code = doctorOn(t, b); return ok(rep, code) }) {
		t.Fatalf("doctor on %s did not say %s within %s; last (exit %d): %+v", b.host, what, within, code, rep.Checks)
	}
	return rep, code
}

// metricsOf scrapes b's /metrics at the address and token `sotd url` prints.
func metricsOf(t *testing.T, b *box) map[string]float64 {
	t.Helper()
	u, err := url.Parse(strings.TrimSpace(b.must("", "url")))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/metrics"
	resp, err := http.Get(u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics on %s: %s, %v", b.host, resp.Status, err)
	}
	out := map[string]float64{}
	for line := range strings.Lines(string(body)) {
		line = strings.TrimSpace(line)
		i := strings.LastIndexByte(line, ' ')
		if line == "" || line[0] == '#' || i < 0 {
			continue
		}
		if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
			out[line[:i]] = v
		}
	}
	return out
}

// TestLinkHealthInDoctorAndMetrics: a guest's doctor reports its link to the
// hub up with a round trip and the hub's clock in step, and its /metrics
// carries the round trip; once the hub is killed the doctor names the link
// down with its fix and exits 1; when the hub is back the guest relinks and
// counts the reconnect.
func TestLinkHealthInDoctorAndMetrics(t *testing.T) {
	t.Parallel()
	n := newNetwork(t, "ga")
	n.quickBeats()
	n.linkAll("ga")
	n.start("ga")
	ga, hb := n.boxes["ga"], n.boxes["hb"]

	rep, code := doctorUntil(t, ga, 15*time.Second, "the link up and timed", func(rep doctor.Report, _ int) bool {
		c := checkOf(t, rep, "links")
		return c.Level == doctor.OK && strings.Contains(c.Detail, "hb up over quic, round trip ")
	})
	t.Logf("doctor on ga (exit %d): %s / %s", code, checkOf(t, rep, "links").Detail, checkOf(t, rep, "clock skew").Detail)
	if c := checkOf(t, rep, "clock skew"); c.Level != doctor.OK || !strings.Contains(c.Detail, "hb ") {
		t.Errorf("clock skew on ga: %s %q; want hb measured in step (one clock)", c.Level, c.Detail)
	}
	if hubRep, _ := doctorOn(t, hb); !strings.Contains(checkOf(t, hubRep, "links").Detail, "ga up over quic") {
		t.Errorf("doctor on the hub: %+v; want ga up", checkOf(t, hubRep, "links"))
	}

	m := metricsOf(t, ga)
	if m[`sotd_link_rtt_seconds_count{peer="hb"}`] < 1 || m[`sotd_link_rtt_seconds_sum{peer="hb"}`] <= 0 {
		t.Errorf("ga's /metrics has no round trip to hb: count %v, sum %v", m[`sotd_link_rtt_seconds_count{peer="hb"}`], m[`sotd_link_rtt_seconds_sum{peer="hb"}`])
	}
	// On one clock the offset's only error is the round trip's asymmetry, at
	// most half the fastest recent one: half a second, or the mean round trip
	// where a loaded machine made every beat slower, is far past that and far
	// short of a clock that is really off (doctor warns at 5 s).
	within := max(0.5, m[`sotd_link_rtt_seconds_sum{peer="hb"}`]/m[`sotd_link_rtt_seconds_count{peer="hb"}`])
	if off, ok := m[`sotd_link_clock_offset_seconds{peer="hb"}`]; !ok || off > within || off < -within {
		t.Errorf("ga's /metrics offset to hb = %v (served %v); want within %.3g s of 0 on one clock", off, ok, within)
	}

	killed := time.Now()
	n.killHub()
	rep, code = doctorUntil(t, ga, 30*time.Second, "the link down", func(rep doctor.Report, code int) bool {
		return code == 1 && checkOf(t, rep, "links").Level == doctor.Fail
	})
	links := checkOf(t, rep, "links")
	t.Logf("doctor on ga %s after the hub was killed: %s\n  fix: %s", time.Since(killed).Round(time.Millisecond), links.Detail, links.Fix)
	if rep.Healthy || !strings.Contains(links.Detail, "hb down since ") || !strings.Contains(links.Fix, "addr = \""+n.quic+"\"") || !strings.Contains(links.Fix, "ws_addr = \""+n.ws+"\"") {
		t.Errorf("doctor on ga after the kill: healthy %v, %q, fix %q; want hb down and its addresses named", rep.Healthy, links.Detail, links.Fix)
	}

	n.startHub()
	n.waitLinked("ga")
	doctorUntil(t, ga, 15*time.Second, "the link up again", func(rep doctor.Report, _ int) bool {
		return checkOf(t, rep, "links").Level == doctor.OK
	})
	if got := metricsOf(t, ga)[`sotd_link_reconnects_total{peer="hb"}`]; got != 1 {
		t.Errorf("ga counted %v reconnects to hb, want 1", got)
	}
}
