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

// Self is a session's identity pin: its file holds the handle on its first
// line, then repo= and root= lines, and in a private file boot=, the boot its
// key's process belongs to.
type Self struct {
	Name string
	Repo string
	Root string
	Boot string // a private slot's boot id; "" in a row's pin
}

// A Slot says which self file pins a session. A row's is self/<host>__<row>.txt,
// the protocol's own. A session outside any row has a private one, named by Key,
// which tells it from every other session on the box:
// self/<host>--<key>.txt. A private name never holds "__", so it never parses as
// a row's <host>__<id>.txt. The zero Slot is the protocol's shared
// <host>__nopane.txt, which this client no longer writes.
type Slot struct {
	Row string // the row's id; "" outside any row
	Key string // a private slot's key, as Key* make it; "" for a row's pin
}

// Key kinds of a private slot, in the order a session outside any row tries
// them.
const (
	KeyAgent = "agent" // the agent process (claude, codex) above the session: agent-<pid>-<start>
	KeyTerm  = "term"  // the session leader of its controlling terminal: term-<pid>-<start>
	KeyRoot  = "root"  // its project root, when it has neither: root-<hash>
)

// ProcKey is a private key for a process kind (KeyAgent or KeyTerm): its pid and
// its start, which together name one process for as long as the boot lasts.
func ProcKey(kind string, pid int, start string) string {
	return fmt.Sprintf("%s-%d-%s", kind, pid, start)
}

// ParseProcKey reads a process key back; ok is false for any other key.
func ParseProcKey(key string) (kind string, pid int, start string, ok bool) {
	kind, rest, found := strings.Cut(key, "-")
	if !found || kind != KeyAgent && kind != KeyTerm {
		return "", 0, "", false
	}
	p, start, found := strings.Cut(rest, "-")
	if !found || start == "" {
		return "", 0, "", false
	}
	if _, err := fmt.Sscanf(p, "%d", &pid); err != nil || pid <= 0 || fmt.Sprint(pid) != p {
		return "", 0, "", false
	}
	return kind, pid, start, true
}

// privateSep joins a private slot's host and key; no key and no host part holds
// "__", the row pin's separator.
const privateSep = "--"

// privateHost is host as a private file's name part: FileName's, with every
// "__" broken so that the name never reads as <host>__<id>.txt.
func privateHost(host string) string {
	n := FileName(host)
	for strings.Contains(n, "__") {
		n = strings.ReplaceAll(n, "__", "_.")
	}
	return n
}

// SelfPath is the self file of slot on host.
func (h Home) SelfPath(host string, slot Slot) string {
	dir := filepath.Join(h.Dir, "self")
	if slot.Row == "" && slot.Key != "" {
		return filepath.Join(dir, privateHost(host)+privateSep+FileName(slot.Key)+".txt")
	}
	row := slot.Row
	if row == "" {
		row = NoPane
	}
	return filepath.Join(dir, FileName(host)+"__"+FileName(row)+".txt")
}

// ReadSelf reads slot's pin; ok is false when there is none.
func (h Home) ReadSelf(host string, slot Slot) (s Self, ok bool, err error) {
	return h.readSelf(h.SelfPath(host, slot))
}

// maxSelf bounds a self file's read: a handle and three lines, each a path at
// most.
const maxSelf = 64 << 10

func (h Home) readSelf(p string) (s Self, ok bool, err error) {
	b, err := h.ReadFile(p, maxSelf)
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
		case strings.HasPrefix(line, "boot="):
			s.Boot = strings.TrimPrefix(line, "boot=")
		}
	}
	if s.Name == "" {
		return Self{}, false, nil
	}
	return s, true, nil
}

// WriteSelf pins s in slot on host.
func (h Home) WriteSelf(host string, slot Slot, s Self) error {
	if err := CheckHandle(s.Name); err != nil {
		return err
	}
	if err := MkdirPrivate(filepath.Join(h.Dir, "self")); err != nil {
		return err
	}
	body := fmt.Sprintf("%s\nrepo=%s\nroot=%s\n", s.Name, oneLine(s.Repo), oneLine(s.Root))
	if s.Boot != "" {
		body += "boot=" + oneLine(s.Boot) + "\n"
	}
	return WriteAtomic(h.SelfPath(host, slot), []byte(body))
}

// RemoveSelf drops slot's pin, if any.
func (h Home) RemoveSelf(host string, slot Slot) error {
	err := os.Remove(h.SelfPath(host, slot))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove self file: %w", err)
	}
	return nil
}

// PrivateSelf is one private slot's pin on this host.
type PrivateSelf struct {
	Key  string
	Self Self
}

// PrivateSelves are the private pins of sessions outside any row on host. A pin
// that cannot be read is left out: it names no session another can step past.
func (h Home) PrivateSelves(host string) ([]PrivateSelf, error) {
	dir := filepath.Join(h.Dir, "self")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the self files in %s: %w", dir, err)
	}
	prefix := privateHost(host) + privateSep
	var out []PrivateSelf
	for _, e := range entries {
		key, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		if key, ok = strings.CutSuffix(key, ".txt"); !ok || key == "" {
			continue
		}
		s, ok, err := h.readSelf(filepath.Join(dir, e.Name()))
		if err != nil || !ok {
			continue
		}
		out = append(out, PrivateSelf{Key: key, Self: s})
	}
	return out, nil
}

func oneLine(s string) string { return strings.NewReplacer("\n", " ", "\r", " ").Replace(s) }

// SessionsDir is where the daemon on host keeps the agent process of each
// session outside any row it stamps live: run/<host>/sessions/<handle>.json.
func (h Home) SessionsDir(host string) string {
	return filepath.Join(h.RunDir(host), "sessions")
}

// SessionRecord is handle's record in SessionsDir; it refuses what CheckHandle
// refuses.
func (h Home) SessionRecord(host, handle string) (string, error) {
	if err := CheckHandle(handle); err != nil {
		return "", err
	}
	return filepath.Join(h.SessionsDir(host), handle+".json"), nil
}
