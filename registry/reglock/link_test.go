package reglock

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sotcomm/sotd/home"
)

// What link adds to home.LinkNew: the record line it writes, and an earlier temp
// a take could not remove, still a link to that take's marker, neither blocks
// the take nor changes the marker. (LinkNew's own rules are tested in home.)
func TestLink(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, ".registry.lock")
	marker := lock + ".marker"
	const me = "a:-:-:-:1:-"
	writeRecord(t, marker, "m:-:-:-:9:-")
	tmp := lock + ".tmp." + home.FileName(me)
	if err := os.Link(marker, tmp); err != nil {
		t.Fatal(err)
	}
	if took, err := link(lock, lock, me); err != nil || !took {
		t.Fatalf("link past an earlier temp = %v, %v", took, err)
	}
	if got := readLine(t, lock); got != me {
		t.Fatalf("the lock holds %q, want %q", got, me)
	}
	if got := readLine(t, marker); got != "m:-:-:-:9:-" {
		t.Fatalf("the marker was changed: %q", got)
	}
	if took, err := link(lock, lock, "b:-:-:-:2:-"); err != nil || took {
		t.Fatalf("link over a holder = %v, %v; want held", took, err)
	}
	if _, err := os.Lstat(tmp); !os.IsNotExist(err) {
		t.Fatalf("the temp was left behind (%v)", err)
	}
}
