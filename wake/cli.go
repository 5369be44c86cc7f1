package wake

import (
	"fmt"
	"io"

	"github.com/sotcomm/sotd/screen"
)

// CheckFile is the body of `sotd wake check SCREENFILE [--windows] [--codex]`: it reads a
// screen saved in the screen text format (as `sotd rows screen ID` saves one)
// and returns the line to print, without a newline, and the exit code: "free"
// or "holds the notice" and 0, "not free: <reason>" and 1, or, for a file that
// is not a screen, what is wrong with it and 2.
func CheckFile(r io.Reader, opt Options) (out string, code int) {
	s, err := screen.Parse(r)
	if err != nil {
		return fmt.Sprintf("not a screen file: %v (save one with `sotd rows screen ID`)", err), 2
	}
	v := Check(s, opt)
	if v.Kind == Free || v.Kind == HoldsNotice {
		return v.String(), 0
	}
	return v.String(), 1
}
