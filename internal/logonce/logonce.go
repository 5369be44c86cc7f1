// Package logonce logs a condition once when it starts and once when it ends,
// however often it is met in between. A loop that meets the same failure on
// every turn (a hub that does not answer, a registry that does not read, a port
// that stays taken) then says so in one line, not one a turn, and says when it
// is over. Every is its kin for a line met again and again for causes of its
// own, as a refused handshake is: a few lines a period.
package logonce

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Condition is one such condition; its zero value holds none, and it may be
// used from several goroutines.
type Condition struct {
	mu   sync.Mutex
	text string // the failure's words while it holds; "" when it does not
}

// Fail records that the condition holds, for err: logged at level when it
// starts or its words change, at Debug while it repeats word for word.
func (c *Condition) Fail(log *slog.Logger, level slog.Level, msg string, err error, attrs ...any) {
	text := err.Error()
	c.mu.Lock()
	repeat := text == c.text
	c.text = text
	c.mu.Unlock()
	if repeat {
		level = slog.LevelDebug
	}
	log.Log(context.Background(), level, msg, append(attrs, "err", text)...)
}

// Clear records that the condition is over: msg is logged at Info when it
// held, and nothing when it did not.
func (c *Condition) Clear(log *slog.Logger, msg string, attrs ...any) {
	if c.Reset() {
		log.Info(msg, attrs...)
	}
}

// Reset forgets the condition without a word, so the next failure is logged
// as new; it reports whether one held.
func (c *Condition) Reset() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	held := c.text != ""
	c.text = ""
	return held
}

// Every logs a line that may be met over and over, each time for a cause of
// its own (a refused handshake, which anyone who reaches the port can send in
// a loop), at its level at most Burst times a Period: those past it go at
// Debug, and the first one logged at its level in the next Period says how
// many there were. Its zero Period logs every line at its level; it may be
// used from several goroutines.
type Every struct {
	Period time.Duration
	Burst  int              // lines a Period logs at their level; at least 1
	Now    func() time.Time // time.Now when nil; a test's clock

	mu     sync.Mutex
	ends   time.Time // when the current Period ends
	logged int       // lines logged at their level in it
	quiet  int       // lines logged at Debug since the last at its level
}

// Log logs msg with attrs at level, or at Debug when Burst lines were logged
// at their level in the current Period.
func (e *Every) Log(log *slog.Logger, level slog.Level, msg string, attrs ...any) {
	now := time.Now
	if e.Now != nil {
		now = e.Now
	}
	t := now()
	e.mu.Lock()
	if !t.Before(e.ends) {
		e.ends, e.logged = t.Add(e.Period), 0
	}
	shown := e.logged < max(e.Burst, 1)
	quiet := e.quiet
	if shown {
		e.logged, e.quiet = e.logged+1, 0
	} else {
		e.quiet++
	}
	e.mu.Unlock()
	switch {
	case !shown:
		level = slog.LevelDebug
	case quiet > 0:
		attrs = append(attrs, "also_since_the_last", quiet)
	}
	log.Log(context.Background(), level, msg, attrs...)
}
