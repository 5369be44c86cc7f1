package metrics

import (
	"fmt"
	"html"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"time"
)

// Profiles serves the Go runtime's profiles under /debug/pprof/, as
// net/http/pprof lays them out, so `go tool pprof` reads them: the index, each
// named profile (heap, goroutine, …; ?debug=1 for text), profile (CPU, ?seconds=,
// default 30) and trace. It is written here rather than imported because
// net/http/pprof registers itself on http.DefaultServeMux at init, a cost every
// client verb in this binary would pay. A CPU profile or trace is bounded by the
// listener's own write bound.
func Profiles() http.Handler { return http.HandlerFunc(serveProfile) }

func serveProfile(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/debug/pprof/")
	switch name {
	case "":
		profileIndex(w)
	case "cmdline":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, strings.Join(os.Args, "\x00"))
	case "profile", "trace":
		timed(w, r, name)
	default:
		p := pprof.Lookup(name)
		if p == nil {
			http.Error(w, "no such profile: "+name, http.StatusNotFound)
			return
		}
		debug, _ := strconv.Atoi(r.URL.Query().Get("debug"))
		if name == "heap" && r.URL.Query().Get("gc") != "" {
			runtime.GC()
		}
		if debug > 0 {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		} else {
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
		}
		p.WriteTo(w, debug)
	}
}

// timed runs a CPU profile or an execution trace for ?seconds= (default 30 for
// a profile, 1 for a trace), or until the client goes away.
func timed(w http.ResponseWriter, r *http.Request, name string) {
	secs, err := strconv.ParseFloat(r.URL.Query().Get("seconds"), 64)
	if err != nil || secs <= 0 {
		secs = 30
		if name == "trace" {
			secs = 1
		}
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	start, stop := pprof.StartCPUProfile, pprof.StopCPUProfile
	if name == "trace" {
		start, stop = trace.Start, trace.Stop
	}
	if err := start(w); err != nil {
		// Only one CPU profile or trace runs at a time.
		w.Header().Del("Content-Disposition")
		http.Error(w, "could not start the "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	select {
	case <-time.After(time.Duration(secs * float64(time.Second))):
	case <-r.Context().Done():
	}
	stop()
}

func profileIndex(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, "<html><head><title>/debug/pprof/</title></head><body>\n<p>Types of profiles available:</p>\n<ul>\n")
	for _, p := range pprof.Profiles() {
		n := html.EscapeString(p.Name())
		fmt.Fprintf(w, "<li><a href=\"%s?debug=1\">%s</a> (%d)</li>\n", n, n, p.Count())
	}
	fmt.Fprint(w, "<li><a href=\"profile?seconds=10\">profile</a> (CPU, ?seconds=)</li>\n<li><a href=\"trace?seconds=1\">trace</a> (?seconds=)</li>\n</ul>\n")
	fmt.Fprint(w, "<p>go tool pprof -http=: 'URL/debug/pprof/profile?seconds=10&amp;token=TOKEN'</p>\n</body></html>\n")
}
