// Package logonce logs a condition once when it starts and once when it ends,
// however often it is met in between. A loop that meets the same failure on
// every turn (a hub that does not answer, a registry that does not read, a port
// that stays taken) then says so in one line, not one a turn, and says when it
// is over.
package logonce

import (
	"context"
	"log/slog"
	"sync"
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
