package testutil

import (
	"flag"
	"strconv"

	_ "github.com/sotcomm/sotd/internal/raceexit" // every test binary that uses testutil exits without the race detector's sleep
)

// AtLeastParallel raises -test.parallel to n unless the command line set it:
// for a package whose parallel tests wait on real time (a link's death, a
// wake's tick, a browser) rather than compute, where go test's default of one
// per CPU leaves a small machine idle through their waits. A TestMain calls it
// after flag.Parse and before m.Run.
func AtLeastParallel(n int) {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	p := flag.Lookup("test.parallel")
	if set || p == nil {
		return
	}
	if now, err := strconv.Atoi(p.Value.String()); err == nil && now < n {
		p.Value.Set(strconv.Itoa(n))
	}
}
