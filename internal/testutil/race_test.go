package testutil

import (
	"flag"
	"os"
	"strings"
	"testing"
)

// TestAtLeastParallel raises a -test.parallel the command line left alone, and
// never lowers one.
func TestAtLeastParallel(t *testing.T) {
	p := flag.Lookup("test.parallel")
	was := p.Value.String()
	t.Cleanup(func() { p.Value.Set(was) })
	explicit := false
	for _, a := range os.Args[1:] {
		explicit = explicit || strings.HasPrefix(strings.TrimLeft(a, "-"), "test.parallel")
	}
	AtLeastParallel(64)
	if want := map[bool]string{true: was, false: "64"}[explicit]; p.Value.String() != want {
		t.Fatalf("-test.parallel %s (given on the command line: %v) is %s after AtLeastParallel(64), want %s", was, explicit, p.Value.String(), want)
	}
	AtLeastParallel(1)
	if p.Value.String() == "1" && was != "1" {
		t.Fatal("AtLeastParallel(1) lowered -test.parallel to 1")
	}
}
