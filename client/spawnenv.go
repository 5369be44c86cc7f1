package client

import (
	"fmt"
	"os"
	"strings"

	"github.com/sotcomm/sotd/rows"
)

// RowEnv is spawn's repeatable --env KEY=VALUE, a flag.Value, or --env KEY,
// which passes this process's own KEY: a secret so given is on no command
// line, where every local account could read it. Each entry is checked as it
// is given, so a bad one is refused before anything is asked of the daemon,
// which checks them again.
type RowEnv []string

func (e *RowEnv) String() string { return strings.Join(*e, " ") }

func (e *RowEnv) Set(kv string) error {
	if !strings.Contains(kv, "=") {
		v, ok := os.LookupEnv(kv)
		if !ok {
			return fmt.Errorf("--env %s passes this shell's %s, which is not set; export it, or give %s=VALUE", kv, kv, kv)
		}
		kv += "=" + v
	}
	if err := rows.CheckEnv(kv); err != nil {
		return err
	}
	*e = append(*e, kv)
	return nil
}
