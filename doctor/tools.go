package doctor

import "fmt"

// checkTools: the tools each path needs. The Go client and daemon need none;
// rows run in tmux where it is on PATH (attachable with tmux), else on the
// built-in screen, and Windows has only the built-in one.
func checkTools(e Env) Check {
	c := Check{Name: "tools"}
	if e.GOOS == "windows" {
		c.Level, c.Detail = OK, "sotd needs no other tool; rows run on the built-in screen (ConPTY)"
		return c
	}
	if p, err := e.LookPath("tmux"); err == nil {
		c.Level, c.Detail = OK, fmt.Sprintf("sotd needs no other tool; rows run in tmux (%s)", p)
		return c
	}
	c.Level, c.Detail = Warn, "tmux is not on PATH, so rows run on the built-in screen and cannot be attached with tmux"
	c.Fix = "Install tmux (apt-get install tmux, brew install tmux) and restart the daemon for attachable rows."
	return c
}
