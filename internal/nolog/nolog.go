// Package nolog is the logger a library of sotd logs to when its owner gave it
// none: one that discards. A library then writes a line only where the program
// running it said to; slog.Default would print to the process's stderr, which
// for a verb or a hook is output a person or an agent reads.
package nolog

import "log/slog"

// Or is log, or a logger that discards every line when log is nil.
func Or(log *slog.Logger) *slog.Logger {
	if log == nil {
		return discard
	}
	return log
}

var discard = slog.New(slog.DiscardHandler)
