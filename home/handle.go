package home

import (
	"errors"
	"fmt"
)

// MaxHandle is the longest handle a path may be built from.
const MaxHandle = 64

// ErrBadHandle is wrapped by every handle refusal, so callers can map it to the
// wire code bad_handle with errors.Is.
var ErrBadHandle = errors.New("not a handle")

// CheckHandle is the one handle rule: 1–64 characters of [A-Za-z0-9._-], never
// "." or "..". Its error is the protocol's "not a handle: …" sentence.
func CheckHandle(h string) error {
	switch {
	case h == "":
		return fmt.Errorf("%w: the handle is empty", ErrBadHandle)
	case len(h) > MaxHandle:
		return fmt.Errorf("%w: %q is %d characters, over the %d allowed", ErrBadHandle, clip(h), len(h), MaxHandle)
	case h == "." || h == "..":
		return fmt.Errorf("%w: %q names a folder, not a session", ErrBadHandle, h)
	}
	for i := 0; i < len(h); i++ {
		if !handleByte(h[i]) {
			return fmt.Errorf("%w: %q has %q at byte %d; a handle is letters, digits, '.', '_' and '-'", ErrBadHandle, clip(h), h[i], i)
		}
	}
	return nil
}

// IsHandleByte reports whether c may appear in a handle: [A-Za-z0-9._-].
func IsHandleByte(c byte) bool { return handleByte(c) }

func handleByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

// clip keeps an error line readable when the refused text is long.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
