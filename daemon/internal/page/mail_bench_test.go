//go:build unix

package page

import (
	"fmt"
	"testing"
	"time"

	"github.com/sotcomm/sotd/daemon/internal/rigtest"
	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/internal/testutil"
)

// BenchmarkLookMailRegistrySize is one look of the page's watch at the
// inboxes (lookMail: every WatchEvery), nothing moved since the last, in a
// home whose registry lists 10 handles and in one that lists 10,000, two of
// them mailed in each; it reports each look's µs and the large case's over
// the small one's, wall and CPU (getrusage), measured in the same run.
//
//	go test -run='^$' -bench=LookMailRegistrySize -benchtime=300x ./daemon/internal/page/
func BenchmarkLookMailRegistrySize(b *testing.B) {
	sizes := []int{10, 10000}
	type look struct {
		v       *Page
		f       *filer.Filer
		counted map[string]mailCount
	}
	looks := make([]look, len(sizes))
	for i, n := range sizes {
		v, f := mailPage(b, n)
		for _, h := range []string{"s00001", "s00002"} {
			fileAt(b, f, "x", h, "hello", rigtest.Now)
		}
		looks[i] = look{v, f, map[string]mailCount{}}
		v.lookMail(f, looks[i].counted)
	}
	took, cpu := make([]time.Duration, len(sizes)), make([]time.Duration, len(sizes))
	for b.Loop() {
		for i, l := range looks {
			start, startCPU := time.Now(), testutil.CPU(b)
			l.v.lookMail(l.f, l.counted)
			took[i] += time.Since(start)
			cpu[i] += testutil.CPU(b) - startCPU
		}
	}
	for i, n := range sizes {
		b.ReportMetric(float64(took[i].Microseconds())/float64(b.N), fmt.Sprintf("µs/look-%d", n))
	}
	ratio := fmt.Sprintf("look-%d/look-%d", sizes[1], sizes[0])
	b.ReportMetric(float64(took[1])/float64(took[0]), ratio)
	b.ReportMetric(float64(cpu[1])/float64(max(cpu[0], 1)), "cpu:"+ratio)
}
