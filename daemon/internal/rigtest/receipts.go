package rigtest

import (
	"fmt"

	"github.com/sotcomm/sotd/wire"
)

// Brief is each receipt as the tests compare it: who, which box, read or not,
// what.
func Brief(rs []wire.Receipt) []string {
	var out []string
	for _, r := range rs {
		out = append(out, fmt.Sprintf("@%s %s %t %s", r.To, r.Box, r.Read, r.Msg))
	}
	return out
}
