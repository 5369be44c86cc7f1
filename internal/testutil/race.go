package testutil

import (
	"flag"
	"os"
	"strconv"
	"strings"
)

// RaceEnv is the GORACE setting for a process a test starts: the race
// detector's runtime sleeps a second at every exit so that late reports from
// other goroutines get out, and a suite that starts hundreds of race-built
// processes spends minutes in that sleep. A race is still reported when it
// happens, and still fails the process's exit status (66).
func RaceEnv() string {
	return "GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0")
}

// QuickRaceExit puts RaceEnv into this test binary's own environment, so every
// process it starts with the inherited environment has it. A TestMain calls it
// before running tests; it does not change this binary's own exit.
func QuickRaceExit() {
	k, v, _ := strings.Cut(RaceEnv(), "=")
	os.Setenv(k, v)
}

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
