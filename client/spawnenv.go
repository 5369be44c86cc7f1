package client

import (
	"strings"

	"github.com/sotcomm/sotd/rows"
)

// RowEnv is spawn's repeatable --env KEY=VALUE, a flag.Value. Each entry is
// checked as it is given, so a bad one is refused before anything is asked of
// the daemon, which checks them again.
type RowEnv []string

func (e *RowEnv) String() string { return strings.Join(*e, " ") }

func (e *RowEnv) Set(kv string) error {
	if err := rows.CheckEnv(kv); err != nil {
		return err
	}
	*e = append(*e, kv)
	return nil
}
