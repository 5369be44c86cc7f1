package rows

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
)

// BenchmarkNoteChanges is the reader's cost per chunk a 120×40 row draws, the
// emulator's alone and with the change times noted (changes.note), for a
// spinner's one-cell frame as Claude Code draws it several times a second
// while it works.
func BenchmarkNoteChanges(b *testing.B) {
	for _, noted := range []bool{false, true} {
		b.Run(fmt.Sprintf("noted=%v", noted), func(b *testing.B) {
			e := vt.NewEmulator(120, 40)
			go drain(e)
			defer e.Close()
			_, _ = e.Write([]byte("\x1b[2J\x1b[H" + strings.Repeat("some output of a turn, drawn above the box\r\n", 34) +
				strings.Repeat("─", 120) + "\r\n❯\u00a0\r\n" + strings.Repeat("─", 120)))
			c := newChanges(e, time.Now())
			frames := []string{"✻", "✶", "✽", "*"}
			i := 0
			for b.Loop() {
				i++
				_, _ = e.Write([]byte("\x1b[H\r\x1b[34B\x1b[38;5;174m" + frames[i%len(frames)] + "\x1b[39m\x1b[40;1H\x1b[38;3H"))
				if noted {
					c.note(e, time.Now())
				}
			}
		})
	}
}

// drain takes the emulator's answers, as the row's replier does.
func drain(e *vt.Emulator) {
	buf := make([]byte, 1024)
	for {
		if _, err := e.Read(buf); err != nil {
			return
		}
	}
}
