package topology

import (
	"fmt"
	"strings"
	"testing"

	_ "github.com/sotcomm/sotd/internal/raceexit" // exits without the race detector's second of sleep
)

// BenchmarkParse: a 200-box file, and a file of nothing but unknown keys,
// whose every finding needs a line; both should cost time linear in size.
func BenchmarkParse(b *testing.B) {
	var boxes strings.Builder
	boxes.WriteString("hub = \"h0\"\n")
	for i := range 200 {
		fmt.Fprintf(&boxes, "[host.h%d]\ndaemon = true\nfrontend = true\naddr = \"h%d.lan:4433\"\nkey = \"ed25519:%052d\"\n\n", i, i, i)
	}
	var junk strings.Builder
	for i := 0; junk.Len() < 256<<10; i++ {
		fmt.Fprintf(&junk, "k%d = 1\n", i)
	}
	for _, tc := range []struct {
		name string
		data string
		ok   bool
	}{{"200 boxes", boxes.String(), true}, {"256 KiB of unknown keys", junk.String(), false}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.data)))
			for b.Loop() {
				if _, _, err := Parse([]byte(tc.data)); (err == nil) != tc.ok {
					b.Fatalf("Parse: %v", err)
				}
			}
		})
	}
}
