package testutil

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// Latencies makes n calls over clients at once, client i taking calls i,
// i+len(clients), …, and returns each call's wait, sorted; the benchmark's
// timer runs only while they do. A call that fails is reported and ends its
// client's share.
func Latencies[C any](b *testing.B, clients []C, n int, call func(c C, j int) error) []time.Duration {
	took := make([][]time.Duration, len(clients))
	var wg sync.WaitGroup
	b.ResetTimer()
	for i, c := range clients {
		wg.Go(func() {
			for j := i; j < n; j += len(clients) {
				start := time.Now()
				if err := call(c, j); err != nil {
					b.Error(err)
					return
				}
				took[i] = append(took[i], time.Since(start))
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	all := slices.Concat(took...)
	slices.Sort(all)
	return all
}

// Percentile is the p-th percentile of sorted waits, 0 for none.
func Percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, len(sorted)*p/100)]
}
