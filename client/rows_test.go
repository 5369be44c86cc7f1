package client

import (
	"testing"

	"github.com/sotcomm/sotd/wire"
)

func TestRowPhase(t *testing.T) {
	code := func(n int) *int { return &n }
	for _, tc := range []struct {
		w    wire.Workspace
		want string
	}{
		{wire.Workspace{Phase: "Ready"}, "Ready"},
		{wire.Workspace{Phase: "Stopped", ExitCode: code(3)}, "Stopped (exit 3)"},
		{wire.Workspace{Phase: "Stopped", ExitCode: code(0)}, "Stopped (exit 0)"},
		{wire.Workspace{Phase: "Stopped", ExitCode: code(-1)}, "Stopped (killed by a signal)"},
	} {
		if got := RowPhase(tc.w); got != tc.want {
			t.Errorf("RowPhase(%+v) = %q, want %q", tc.w, got, tc.want)
		}
	}
}
