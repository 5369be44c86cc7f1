package filer

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/sotcomm/sotd/home"
)

// Cursor is a parsed read cursor, read/<handle>.cursor.
type Cursor struct {
	Count int    // lines already shown
	Hash  string // LineHash of line Count; "" for a count-only cursor
	// Stamp is set for a legacy timestamp cursor (then Count and Hash are unused):
	// it reads as the lines before the first whose ts is later than Stamp.
	Stamp string
}

// ParseCursor reads the cursor forms the protocol allows: `<count> <crc>-<len>`, a
// count alone, and a legacy ISO-8601 UTC stamp. Surrounding white space is ignored.
func ParseCursor(s string) (Cursor, error) {
	f := strings.Fields(s)
	switch len(f) {
	case 1:
		if n, ok := count(f[0]); ok {
			return Cursor{Count: n}, nil
		}
		if _, err := time.Parse(time.RFC3339Nano, f[0]); err == nil && strings.HasSuffix(f[0], "Z") {
			return Cursor{Stamp: f[0]}, nil
		}
	case 2:
		n, ok := count(f[0])
		h, hok := parseHash(f[1])
		if ok && hok {
			return Cursor{Count: n, Hash: h}, nil
		}
	}
	return Cursor{}, fmt.Errorf("%q is not a read cursor (`<count> <crc>-<len>`, a count, or a UTC time stamp)", clip(s))
}

// String is the cursor as written on disk.
func (c Cursor) String() string {
	switch {
	case c.Stamp != "":
		return c.Stamp
	case c.Hash == "":
		return strconv.Itoa(c.Count)
	}
	return strconv.Itoa(c.Count) + " " + c.Hash
}

// count reads a line count: decimal digits only.
func count(s string) (int, bool) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// parseHash reads `<crc>-<len>` and returns it in LineHash's canonical form.
func parseHash(s string) (string, bool) {
	c, l, ok := strings.Cut(s, "-")
	if !ok || strings.TrimLeft(c, "0123456789") != "" || strings.TrimLeft(l, "0123456789") != "" {
		return "", false
	}
	crc, err := strconv.ParseUint(c, 10, 32)
	if err != nil {
		return "", false
	}
	n, err := strconv.ParseInt(l, 10, 64)
	if err != nil {
		return "", false
	}
	return strconv.FormatUint(crc, 10) + "-" + strconv.FormatInt(n, 10), true
}

// laterThan reports whether a line's ts is after a legacy cursor's stamp. Both are
// compared as times, so a stamp with a fraction of a second still orders right; a
// ts that is not a time is never later.
func laterThan(ts, stamp string) bool {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return false
	}
	s, err := time.Parse(time.RFC3339Nano, stamp)
	return err == nil && t.After(s)
}

// maxCursor bounds the read of a cursor or an offset index: each is one short
// line.
const maxCursor = 4096

// readCursor reads path. No file, or an empty one, is the start of the inbox. A
// file that does not parse is garbled, its parse error, and the reader recovers
// the position from the offset index where it can (see resume).
func readCursor(h home.Home, path string) (c Cursor, garbled, err error) {
	b, err := h.ReadFile(path, maxCursor)
	if errors.Is(err, fs.ErrNotExist) {
		return Cursor{}, nil, nil
	}
	if errors.Is(err, home.ErrNotRegular) {
		return Cursor{}, nil, fmt.Errorf("%w; nothing was read", err)
	}
	if err != nil {
		return Cursor{}, nil, fmt.Errorf("the read cursor %s could not be read (%v); nothing was read, and the cursor is unchanged", path, bareErr(err))
	}
	if strings.TrimSpace(string(b)) == "" {
		return Cursor{}, nil, nil
	}
	c, err = ParseCursor(string(b))
	if err != nil {
		return Cursor{}, err, nil
	}
	return c, nil, nil
}

// writeCursor replaces the cursor file atomically (0600).
func writeCursor(path string, c Cursor) error {
	return home.WriteAtomic(path, []byte(c.String()+"\n"))
}

// clip keeps an error line readable when the refused text is long.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
