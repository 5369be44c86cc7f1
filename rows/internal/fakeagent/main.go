// Command fakeagent is a scripted stand-in for an agent's terminal UI, for the
// tests of rows, the wake and the daemon. It draws what Claude Code draws at its
// prompt: a rule, the input line "❯" + no-break space with the cursor after it,
// a lower rule and a footer. It echoes typed characters into the box, and on
// Enter clears the box and prints the submitted line above it.
//
// It is configured by its environment:
//
//	FAKEAGENT_LOG      append every byte received on stdin to this file
//	FAKEAGENT_DRAFT    start with this text in the box (a draft)
//	FAKEAGENT_SUGGEST  show this dim suggestion while the box is empty
//	FAKEAGENT_BUSY     "1": start busy, redrawing a spinner every 100 ms
//	FAKEAGENT_GLYPH    the prompt glyph (default ❯; ">" for Claude on Windows)
//	FAKEAGENT_ASKPOS   "1": ask the terminal for the cursor position first and
//	                   show the answer ("cursor report: ROW;COL") on the top line
//
// The top line names the row and handle the agent was given
// ("fake agent row=ws-… name=…"), so a test can see the row's environment.
//
// Submitted lines that are commands: /busy and /idle switch the spinner, /exit
// ends the program with status 0, /exit N with status N. Ctrl-D in an empty box
// ends it too. /dialog shows a permission dialog in place of the input box, as
// Claude Code draws one ("Do you want to proceed?", "❯ 1. Yes", …); the next
// key answers it and brings the box back.
package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/term"
)

const nbsp = "\u00a0"

type agent struct {
	mu      sync.Mutex
	cols    int
	rows    int
	glyph   string
	box     string
	suggest string
	busy    bool
	dialog  bool
	spin    int
	report  string
	history []string
	log     *os.File

	// input parser state, kept across reads
	pending []byte // an incomplete UTF-8 sequence
	esc     int    // 0 text, 1 after ESC, 2 inside CSI
	csi     []byte
	posSeen chan struct{}
}

func main() {
	a := &agent{cols: 120, rows: 40, glyph: "❯", box: os.Getenv("FAKEAGENT_DRAFT"),
		suggest: os.Getenv("FAKEAGENT_SUGGEST"), busy: os.Getenv("FAKEAGENT_BUSY") == "1",
		posSeen: make(chan struct{})}
	if g := os.Getenv("FAKEAGENT_GLYPH"); g != "" {
		a.glyph = g
	}
	if w, h, err := term.GetSize(int(os.Stdout.Fd())); err == nil && w > 0 && h > 0 {
		a.cols, a.rows = w, h
	}
	if p := os.Getenv("FAKEAGENT_LOG"); p != "" {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			fmt.Fprintf(os.Stderr, "fakeagent: open the byte log: %v\n", err)
			os.Exit(2)
		}
		a.log = f
	}
	if old, err := term.MakeRaw(int(os.Stdin.Fd())); err == nil {
		defer term.Restore(int(os.Stdin.Fd()), old)
	}
	done := make(chan int)
	go a.readInput(done)
	if os.Getenv("FAKEAGENT_ASKPOS") == "1" {
		os.Stdout.WriteString("\x1b[6n")
		select {
		case <-a.posSeen:
		case <-time.After(2 * time.Second):
			a.mu.Lock()
			a.report = "none"
			a.mu.Unlock()
		}
	}
	a.draw()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case code := <-done:
			os.Stdout.WriteString("\x1b[2J\x1b[H")
			os.Exit(code)
		case <-tick.C:
			a.mu.Lock()
			busy := a.busy
			if busy {
				a.spin++
			}
			a.mu.Unlock()
			if busy {
				a.draw()
			}
		}
	}
}

// readInput logs and applies every byte typed; it sends the exit status on done.
func (a *agent) readInput(done chan<- int) {
	buf := make([]byte, 4096)
	for {
		n, err := os.Stdin.Read(buf)
		if n > 0 {
			if a.log != nil {
				a.log.Write(buf[:n])
			}
			if code, exit := a.feed(buf[:n]); exit {
				done <- code
				return
			}
			a.draw()
		}
		if err != nil {
			done <- 0
			return
		}
	}
}

// feed applies input bytes; a UTF-8 character split across reads is kept until
// its last byte arrives.
func (a *agent) feed(b []byte) (code int, exit bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	data := append(a.pending, b...)
	a.pending = nil
	for len(data) > 0 {
		if !utf8.FullRune(data) {
			a.pending = append([]byte(nil), data...)
			break
		}
		r, size := utf8.DecodeRune(data)
		data = data[size:]
		if code, exit := a.key(r); exit {
			return code, true
		}
	}
	return 0, false
}

func (a *agent) key(r rune) (code int, exit bool) {
	switch a.esc {
	case 1:
		a.esc = 0
		if r == '[' {
			a.esc, a.csi = 2, a.csi[:0]
		}
		return 0, false
	case 2:
		if r >= 0x40 && r <= 0x7e {
			a.esc = 0
			if r == 'R' && a.report == "" {
				a.report = string(a.csi)
				close(a.posSeen)
			}
			return 0, false
		}
		a.csi = append(a.csi, byte(r))
		return 0, false
	}
	switch {
	case a.dialog:
		a.dialog = false
		a.history = append(a.history, "⏺ dialog answered: "+string(r))
	case r == 0x1b:
		a.esc = 1
	case r == '\r':
		return a.submit()
	case r == 0x7f || r == 0x08:
		if _, size := utf8.DecodeLastRuneInString(a.box); size > 0 {
			a.box = a.box[:len(a.box)-size]
		}
	case r == 0x04 && a.box == "":
		return 0, true
	case r < 0x20:
	default:
		a.box += string(r)
	}
	return 0, false
}

func (a *agent) submit() (code int, exit bool) {
	line := a.box
	a.box, a.suggest = "", ""
	a.history = append(a.history, "> "+line)
	switch {
	case line == "/busy":
		a.busy = true
	case line == "/idle":
		a.busy = false
	case line == "/dialog":
		a.dialog = true
	case line == "/exit":
		return 0, true
	case strings.HasPrefix(line, "/exit "):
		n, _ := strconv.Atoi(strings.TrimPrefix(line, "/exit "))
		return n, true
	default:
		a.history = append(a.history, "⏺ got: "+line)
	}
	return 0, false
}

var spinner = []string{"✻", "✶", "✳", "✢", "·"}

// draw paints the whole screen in one write and leaves the cursor in the box.
func (a *agent) draw() {
	a.mu.Lock()
	defer a.mu.Unlock()
	var b strings.Builder
	line := func(row int, text string) {
		fmt.Fprintf(&b, "\x1b[%d;1H\x1b[2K%s", row+1, text)
	}
	top := a.rows - 4
	title := "fake agent row=" + os.Getenv("SOT_WORKSPACE_ID") + " name=" + os.Getenv("SOT_COMM_NAME")
	if a.report != "" {
		title += " · cursor report: " + a.report
	}
	line(0, title)
	room := top - 2
	hist := a.history
	if len(hist) > room {
		hist = hist[len(hist)-room:]
	}
	for i := 0; i < room; i++ {
		text := ""
		if i < len(hist) {
			text = hist[i]
		}
		line(1+i, text)
	}
	status := ""
	if a.busy {
		status = spinner[a.spin%len(spinner)] + " Working… (" + strconv.Itoa(a.spin) + ")"
	}
	line(top-1, status)
	rule := strings.Repeat("─", a.cols)
	if a.dialog {
		a.drawDialog(&b, rule)
		os.Stdout.WriteString(b.String())
		return
	}
	line(top, rule)
	prompt := a.glyph + nbsp
	switch {
	case a.box != "":
		line(top+1, prompt+a.box)
	case a.suggest != "":
		line(top+1, prompt+"\x1b[2m"+a.suggest+"\x1b[22m")
	default:
		line(top+1, prompt)
	}
	line(top+2, rule)
	line(top+3, "  ? for shortcuts")
	col := ansi.StringWidth(prompt) + ansi.StringWidth(a.box)
	fmt.Fprintf(&b, "\x1b[%d;%dH", top+2, col+1)
	os.Stdout.WriteString(b.String())
}

// drawDialog paints a permission dialog over the bottom rows, where Claude Code
// draws one, with the cursor hidden on its first option.
func (a *agent) drawDialog(b *strings.Builder, rule string) {
	rows := []string{rule, " Bash command", "", "   rm -rf build", "", " Do you want to proceed?",
		" ❯ 1. Yes", "   2. Yes, and don't ask again for rm commands", "   3. No, and tell Claude what to do differently (esc)"}
	first := max(a.rows-len(rows), 1)
	for i, text := range rows {
		fmt.Fprintf(b, "\x1b[%d;1H\x1b[2K%s", first+i+1, text)
	}
	fmt.Fprintf(b, "\x1b[%d;2H", first+7)
}
