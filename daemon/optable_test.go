package daemon

import (
	"testing"

	"github.com/sotcomm/sotd/wire"
)

// TestOpTableNamesEverySocketOpOnce: the one op table registers each op the
// wire package says the socket serves exactly once, and nothing else, so an
// op added to one and not the other fails here rather than as "unknown op".
func TestOpTableNamesEverySocketOpOnce(t *testing.T) {
	seen := map[string]int{}
	for _, o := range opTable {
		seen[o.name]++
	}
	for _, op := range wire.SocketOps {
		if n := seen[op]; n != 1 {
			t.Errorf("op %s is in the op table %d times, want once", op, n)
		}
		delete(seen, op)
	}
	for op := range seen {
		t.Errorf("op %s is in the op table but not in wire.SocketOps", op)
	}
	if len(ops) != len(opTable) {
		t.Errorf("the op table's index holds %d ops, the table %d", len(ops), len(opTable))
	}
}
