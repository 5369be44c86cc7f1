package ancestry

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// parseProcArgs reads macOS's kern.procargs2 record: argc (a 32-bit integer),
// the executable's path, NUL padding, then argc NUL-terminated arguments (the
// environment follows, unread). A record that ends before its arguments do is
// an error: a parse that did not finish is never trusted. It is compiled on
// every OS so its tests and fuzzing run on any box.
func parseProcArgs(b []byte) (exe string, argv []string, err error) {
	if len(b) < 4 {
		return "", nil, errors.New("the record is shorter than its argument count")
	}
	// Every macOS machine is little-endian.
	argc := int(int32(binary.LittleEndian.Uint32(b)))
	rest := b[4:]
	// Each argument takes at least its NUL, so a count beyond the bytes left is
	// not a count.
	if argc < 0 || argc > len(rest) {
		return "", nil, fmt.Errorf("argument count %d does not fit the %d-byte record", argc, len(b))
	}
	i := bytes.IndexByte(rest, 0)
	if i < 0 {
		return "", nil, errors.New("the executable path does not end")
	}
	exe, rest = string(rest[:i]), bytes.TrimLeft(rest[i:], "\x00")
	argv = make([]string, 0, argc)
	for range argc {
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			return "", nil, fmt.Errorf("the record ends after %d of %d arguments", len(argv), argc)
		}
		argv = append(argv, string(rest[:i]))
		rest = rest[i+1:]
	}
	return exe, argv, nil
}
