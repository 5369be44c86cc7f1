package registry

import (
	"fmt"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
)

// BenchmarkReadRowsSize is one row's read (Lookup), the whole registry's
// (Read), the daemon's index of it (ReadIndex), a write of one row in place
// (Mark), and the daemon's index read again after that write from the one
// before it (ReadIndexSince), with 10 rows and with 10,000, in turn in each
// op; it reports each one's µs and the large case's time over the small
// one's, in the same run.
//
//	go test -run='^$' -bench=ReadRowsSize -benchtime=100x ./registry/
func BenchmarkReadRowsSize(b *testing.B) {
	sizes := []int{10, 10000}
	homes := make([]home.Home, len(sizes))
	last := map[home.Home]*Index{}
	for i, n := range sizes {
		homes[i] = rowsHome(b, n)
		x, err := ReadIndex(homes[i])
		if err != nil {
			b.Fatal(err)
		}
		last[homes[i]] = x
	}
	reads := []struct {
		name string
		read func(h home.Home) error
	}{
		{"lookup", func(h home.Home) error { _, _, err := Lookup(h, "s00001"); return err }},
		{"read", func(h home.Home) error { _, err := Read(h); return err }},
		{"index", func(h home.Home) error { _, err := ReadIndex(h); return err }},
		{"write", func(h home.Home) error {
			return Mark(h, "s00001", TouchWait, func(e *Entry) error { e.Note = time.Now().String(); return nil })
		}},
		{"index-after-write", func(h home.Home) error {
			x, ch, err := ReadIndexSince(h, last[h])
			if err == nil && ch.Whole {
				err = fmt.Errorf("a write of one row was read whole")
			}
			last[h] = x
			return err
		}},
	}
	took := make([][2]time.Duration, len(reads))
	for b.Loop() {
		for r, read := range reads {
			for i, h := range homes {
				start := time.Now()
				if err := read.read(h); err != nil {
					b.Fatal(err)
				}
				took[r][i] += time.Since(start)
			}
		}
	}
	for r, read := range reads {
		for i, n := range sizes {
			b.ReportMetric(float64(took[r][i].Microseconds())/float64(b.N), fmt.Sprintf("µs/%s-%d", read.name, n))
		}
		b.ReportMetric(float64(took[r][1])/float64(took[r][0]), fmt.Sprintf("%s-%d/%s-%d", read.name, sizes[1], read.name, sizes[0]))
	}
}

// rowsHome is a home whose registry lists n live rows as sotd writes them.
func rowsHome(b testing.TB, n int) home.Home {
	b.Helper()
	h, err := home.At(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	if err := h.Ensure(); err != nil {
		b.Fatal(err)
	}
	body := rowsBody(b, n)
	if err := home.WriteAtomic(h.Registry(), body); err != nil {
		b.Fatal(err)
	}
	return h
}

// rowsBody is a registry listing n live rows as sotd writes them.
func rowsBody(tb testing.TB, n int) []byte {
	tb.Helper()
	now := Stamp(time.Now())
	d := &Doc{ProtocolVersion: ProtocolVersion, Agents: map[string]*Entry{}}
	for i := range n {
		d.Agents[fmt.Sprintf("s%05d", i)] = &Entry{Host: "box", Repo: "r", Root: "/src/r", Joined: now, LastSeen: now,
			Status: "active", State: StateWorking, Summary: "rebasing the feature branch on main", StatusAt: now, Expertise: []string{"go", "sql"}}
	}
	body, err := d.Marshal()
	if err != nil {
		tb.Fatal(err)
	}
	return body
}
