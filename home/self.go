package home

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// NoPane is the row part of a self file's name outside any row.
const NoPane = "nopane"

// Self is a session's identity pin: self/<host>__<row|nopane>.txt holds the
// handle on its first line, then repo= and root= lines.
type Self struct {
	Name string
	Repo string
	Root string
}

// SelfPath is the self file for a session on host in row (empty row: nopane).
func (h Home) SelfPath(host, row string) string {
	if row == "" {
		row = NoPane
	}
	return filepath.Join(h.Dir, "self", FileName(host)+"__"+FileName(row)+".txt")
}

// ReadSelf reads the pin; ok is false when there is none.
func (h Home) ReadSelf(host, row string) (s Self, ok bool, err error) {
	p := h.SelfPath(host, row)
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Self{}, false, nil
	}
	if err != nil {
		return Self{}, false, fmt.Errorf("read self file %s: %w", p, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	first := true
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		switch {
		case first:
			s.Name = strings.TrimSpace(line)
			first = false
		case strings.HasPrefix(line, "repo="):
			s.Repo = strings.TrimPrefix(line, "repo=")
		case strings.HasPrefix(line, "root="):
			s.Root = strings.TrimPrefix(line, "root=")
		}
	}
	if s.Name == "" {
		return Self{}, false, nil
	}
	return s, true, nil
}

// WriteSelf pins s for host and row.
func (h Home) WriteSelf(host, row string, s Self) error {
	if err := CheckHandle(s.Name); err != nil {
		return err
	}
	if err := MkdirPrivate(filepath.Join(h.Dir, "self")); err != nil {
		return err
	}
	body := fmt.Sprintf("%s\nrepo=%s\nroot=%s\n", s.Name, oneLine(s.Repo), oneLine(s.Root))
	return WriteAtomic(h.SelfPath(host, row), []byte(body))
}

// RemoveSelf drops the pin, if any.
func (h Home) RemoveSelf(host, row string) error {
	err := os.Remove(h.SelfPath(host, row))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove self file: %w", err)
	}
	return nil
}

func oneLine(s string) string { return strings.NewReplacer("\n", " ", "\r", " ").Replace(s) }
