//go:build !windows

package rows_test

import (
	"testing"
	"time"

	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/rows"
	"github.com/sotcomm/sotd/rows/rowstest"
)

// benchRows reports CPU milliseconds per op beside wall time: the wake loop's
// budget is CPU, and tmux's cost is in its client processes and its server.
func benchRows(b *testing.B, rowCount int, op func(bk rows.Backend, ids []string) error) {
	for _, k := range kinds(b) {
		b.Run(k.name, func(b *testing.B) {
			bk := k.make(b, rows.Options{})
			var ids []string
			for range rowCount {
				spec := rows.Spec{Label: "bench", Agent: rows.Claude, Argv: []string{fakeAgent}}
				info, err := bk.Start(spec)
				if err != nil {
					b.Fatal(err)
				}
				ids = append(ids, info.Spec.ID)
			}
			for _, id := range ids {
				rowstest.WaitScreen(b, bk, id, wait, "the prompt", atPrompt(""))
			}
			server := rowstest.TmuxServerCPU(b, bk)
			b.ResetTimer()
			start, serverStart := testutil.CPUWithChildren(b), server()
			for b.Loop() {
				if err := op(bk, ids); err != nil {
					b.Fatal(err)
				}
			}
			used := testutil.CPUWithChildren(b) - start + server() - serverStart
			b.ReportMetric(float64(used)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
		})
	}
}

// One Screen of one row: what the wake reads of a row with mail waiting.
func BenchmarkScreen(b *testing.B) {
	benchRows(b, 1, func(bk rows.Backend, ids []string) error {
		_, err := bk.Screen(ids[0])
		return err
	})
}

// One List of 50 rows: what the wake loop reads every tick when no mail waits.
func BenchmarkList50(b *testing.B) {
	benchRows(b, 50, func(bk rows.Backend, ids []string) error {
		_, err := bk.List()
		return err
	})
}
