package client

import (
	"slices"
	"testing"
)

// sotd run gives its row the shell's environment, but not what describes the
// shell's own terminal or names a row, nor an entry no row can take.
func TestRunEnv(t *testing.T) {
	for _, tc := range []struct {
		kv   string
		kept bool
	}{
		{"PATH=/usr/bin:/bin", true},
		{"ANTHROPIC_API_KEY=sk-x", true},
		{"K=a=b 'c'", true},
		{"TERM=xterm-kitty", false},
		{"TMUX=/tmp/tmux-0/default,1,0", false},
		{"TMUX_PANE=%1", false},
		{"COLUMNS=200", false},
		{"LINES=50", false},
		{"SOT_WORKSPACE_ID=ws-other", false},
		{"SOT_COMM_NAME=someone", false},
		{"BASH_FUNC_f%%=() {  :\n}", false},
		{"=odd", false},
	} {
		if got := slices.Contains(RunEnv([]string{tc.kv}), tc.kv); got != tc.kept {
			t.Errorf("RunEnv keeps %q: %v, want %v", tc.kv, got, tc.kept)
		}
	}
}
