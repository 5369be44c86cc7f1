package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
)

// A reader that keeps its last index and snapshot reads, after every kind of
// write, what a fresh read of the file reads: the same rows (decoded alike),
// the same version, the same Doc, and unreadable exactly when a fresh read
// is. A write of one row in place (Mark, Touch, WriteStatus) is read as that
// row alone; any other is read whole.
func TestIndexSinceReadsAsAFreshRead(t *testing.T) {
	h := newHome(t)
	writeRegistry(t, h, string(rowsBody(t, 40)))
	now := time.Now()
	writes := []struct {
		name string
		one  string // the one row the write changes in place; "" for a whole read
		do   func() error
	}{
		{"touch", "s00003", func() error { return Touch(h, "s00003", now.Add(time.Minute), TouchWait) }},
		{"status", "s00007", func() error {
			return WriteStatus(h, "s00007", Status{Verb: VerbBlocked, Text: "waiting on review", HasText: true}, now, TouchWait)
		}},
		{"a row's binding moves", "s00039", func() error {
			return Mark(h, "s00039", TouchWait, func(e *Entry) error { e.WorkspaceID, e.Host = "w-9", "other"; return nil })
		}},
		{"the first row grows", "s00000", func() error {
			return Mark(h, "s00000", TouchWait, func(e *Entry) error {
				e.Extra = map[string]json.RawMessage{"theirs": json.RawMessage(`{"a":[1,2,{"b":null}],"c":"\u00e9"}`)}
				return nil
			})
		}},
		{"the same bytes again", "", func() error { return os.WriteFile(h.Registry(), mustBytes(t, h), 0o600) }},
		{"a join", "", func() error {
			return Update(h, TouchWait, func(d *Doc) error { d.Agents["zed"] = &Entry{Host: "box", LastSeen: Stamp(now)}; return nil })
		}},
		{"a leave", "", func() error {
			return Update(h, TouchWait, func(d *Doc) error { delete(d.Agents, "s00010"); return nil })
		}},
		{"a row torn by hand", "", func() error { return edit(h, `"s00012": {`, `"s00012": {"host": "box",, `) }},
		{"mended", "", func() error { return edit(h, `"s00012": {"host": "box",, `, `"s00012": {`) }},
		{"a row made a number", "", func() error { return editRow(h, "s00020", `5`) }},
		{"the number made a string", "", func() error { return editRow(h, "s00020", `"gone"`) }},
		{"a row made an object again", "", func() error { return editRow(h, "s00020", `{"host":"box","last_seen":""}`) }},
		{"a row written twice", "", func() error { return edit(h, `"s00021": {`, `"s00021": {"host":"a"}, "s00021": {`) }},
		{"a row of the twice-named changed", "", func() error { return edit(h, `"s00021": {"host":"a"}`, `"s00021": {"host":"b"}`) }},
		{"the version", "", func() error { return edit(h, `"protocol_version": 1`, `"protocol_version": 2`) }},
		{"no longer one document", "", func() error { return edit(h, "\n}\n", "\n}\n{}") }},
		{"the second document gone", "", func() error { return edit(h, "\n}\n{}", "\n}\n") }},
	}
	x, snap := firstReads(t, h)
	for _, w := range writes {
		if err := w.do(); err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		nx, ch, _ := sameAsFresh(t, w.name, h, x)
		if w.one != "" && (ch.Whole || ch.Row != w.one) {
			t.Errorf("%s: read as %+v; want the row %s alone", w.name, ch, w.one)
		}
		nsnap := sameSnapshot(t, w.name, h, snap)
		if nx != nil {
			x, snap = nx, nsnap
		}
	}
}

// Any edit of the file's bytes, here hundreds of random ones (bytes
// deleted, put in, changed, mostly inside rows), is read from the last index
// as a fresh read reads it: a registry damaged anywhere is unreadable, never
// taken for the old one with a row changed.
func TestIndexSinceOfRandomEdits(t *testing.T) {
	h := newHome(t)
	writeRegistry(t, h, string(rowsBody(t, 12)))
	x, snap := firstReads(t, h)
	r := rand.New(rand.NewPCG(1, 2))
	bits := []string{`"`, `\`, `{`, `}`, `[`, `]`, `,`, `:`, ` `, `1`, `-`, `e`, `null`, `true`, `"x"`, `{"a":1}`, `"\u00e9"`, "\x01", "é"}
	one := 0 // edits read as a change of one row
	for n := range 300 {
		b := mustBytes(t, h)
		at := r.IntN(len(b))
		cut := min(len(b), at+r.IntN(4))
		var put string
		for range r.IntN(3) {
			put += bits[r.IntN(len(bits))]
		}
		edited := string(b[:at]) + put + string(b[cut:])
		if err := os.WriteFile(h.Registry(), []byte(edited), 0o600); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("edit %d", n)
		nx, ch, ok := sameAsFresh(t, name, h, x)
		nsnap := sameSnapshot(t, name, h, snap)
		if ok {
			if !ch.Whole {
				one++
			}
			x, snap = nx, nsnap
			continue
		}
		// Unreadable: the next edit starts from the readable file again.
		if err := os.WriteFile(h.Registry(), b, 0o600); err != nil {
			t.Fatal(err)
		}
		if t.Failed() {
			t.Fatalf("after the edit %q at %d (cut to %d) of\n%s", put, at, cut, b)
		}
	}
	if one < 10 {
		t.Errorf("%d of the edits were read as a change of one row; the test means to try that read", one)
	}
	t.Logf("%d edits read as a change of one row", one)
}

// firstReads is a reader's first index and snapshot of h's registry.
func firstReads(t *testing.T, h home.Home) (*Index, *Snapshot) {
	t.Helper()
	x, err := ReadIndex(h)
	if err != nil {
		t.Fatal(err)
	}
	snap, _, err := ReadSnapshot(h, nil)
	if err != nil {
		t.Fatal(err)
	}
	return x, snap
}

// sameAsFresh reads the registry from x and fresh, and fails unless the two
// read alike; ok is whether it read.
func sameAsFresh(t *testing.T, what string, h home.Home, x *Index) (*Index, Change, bool) {
	t.Helper()
	fresh, ferr := ReadIndex(h)
	got, ch, err := ReadIndexSince(h, x)
	if (ferr == nil) != (err == nil) || err != nil && !errors.Is(err, ErrUnreadable) {
		t.Fatalf("%s: read from the last index as %v; a fresh read as %v", what, err, ferr)
	}
	if err != nil {
		if err.Error() != ferr.Error() {
			t.Errorf("%s: unreadable as %q; a fresh read says %q", what, err, ferr)
		}
		return nil, ch, false
	}
	if got.Version() != fresh.Version() {
		t.Errorf("%s: version %d; a fresh read's %d", what, got.Version(), fresh.Version())
	}
	names := slices.Sorted(slices.Values(append(got.listed(), fresh.listed()...)))
	names = slices.Compact(names)
	a, err := got.Rows(names)
	if err != nil {
		t.Fatal(err)
	}
	b, err := fresh.Rows(names)
	if err != nil {
		t.Fatal(err)
	}
	da, aerr := FromRows(got.Version(), a)
	db, berr := FromRows(fresh.Version(), b)
	if (aerr == nil) != (berr == nil) || !reflect.DeepEqual(da, db) {
		t.Errorf("%s: rows read as\n%v (%v)\nfresh as\n%v (%v)", what, da, aerr, db, berr)
	}
	return got, ch, true
}

// sameSnapshot reads the registry from snap, and fails unless it reads as
// Read does.
func sameSnapshot(t *testing.T, what string, h home.Home, snap *Snapshot) *Snapshot {
	t.Helper()
	want, werr := Read(h)
	got, _, err := ReadSnapshot(h, snap)
	if (werr == nil) != (err == nil) {
		t.Fatalf("%s: snapshot read as %v; Read as %v", what, err, werr)
	}
	if err != nil {
		if err.Error() != werr.Error() {
			t.Errorf("%s: snapshot unreadable as %q; Read says %q", what, err, werr)
		}
		return snap
	}
	if !reflect.DeepEqual(got.Doc, want) {
		t.Errorf("%s: snapshot's Doc\n%+v\nRead's\n%+v", what, got.Doc, want)
	}
	return got
}

// listed is every name x finds.
func (x *Index) listed() []string {
	if x.doc != nil {
		return sortedKeys(x.doc.Agents)
	}
	return slices.Clone(x.names)
}

func mustBytes(t *testing.T, h home.Home) []byte {
	t.Helper()
	b, err := os.ReadFile(h.Registry())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// edit replaces the registry's first old with new, by hand.
func edit(h home.Home, old, new string) error {
	b, err := os.ReadFile(h.Registry())
	if err != nil {
		return err
	}
	if !strings.Contains(string(b), old) {
		return errors.New("no " + old + " in the registry")
	}
	return os.WriteFile(h.Registry(), []byte(strings.Replace(string(b), old, new, 1)), 0o600)
}

// editRow replaces name's row with value, by hand.
func editRow(h home.Home, name, value string) error {
	x, err := ReadIndex(h)
	if err != nil {
		return err
	}
	raw, ok := x.raw(name)
	if !ok {
		return errors.New("no row " + name)
	}
	return edit(h, `"`+name+`": `+string(raw), `"`+name+`": `+value)
}
