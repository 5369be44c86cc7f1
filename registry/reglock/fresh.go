package reglock

import (
	"io"
	"os"
	"path/filepath"
	"strings"
)

// MaxRecord bounds a read: a record is one short line, and anything longer is
// not one.
const MaxRecord = 4096

type readState int

const (
	readRecord    readState = iota // a record line
	readNotRecord                  // read whole, but not a record (empty included)
	readFailed                     // not read: gone, a directory, or an I/O error
)

// fresh reads path's record fresh from the server. Opening its folder first
// forces the folder's attributes (close-to-open), so a changed folder drops
// every cached lookup beneath it and the record's own open goes to the server.
// The folder open is required only where a death can be proved.
func fresh(path string, proves bool) (record, readState, error) {
	d, err := os.Open(filepath.Dir(path))
	if err == nil {
		d.Close()
	} else if proves {
		return record{}, readFailed, err
	}
	f, err := os.Open(path)
	if err != nil {
		return record{}, readFailed, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxRecord))
	if err != nil {
		return record{}, readFailed, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	h, ok := ParseHolder(line)
	if !ok {
		return record{line: line}, readNotRecord, nil
	}
	return record{line: line, Holder: h}, readRecord, nil
}

func isDir(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.IsDir()
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
