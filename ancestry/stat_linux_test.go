package ancestry

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// statLine is a /proc/<pid>/stat line for name, with ppid as field 4 and start
// as field 22.
func statLine(pid int, name string, ppid int, start string) string {
	f := []string{"S", fmt.Sprint(ppid)}
	for i := 5; i <= 21; i++ {
		f = append(f, "0")
	}
	f = append(f, start, "123", "456")
	return fmt.Sprintf("%d (%s) %s\n", pid, name, strings.Join(f, " "))
}

func TestParseStat(t *testing.T) {
	for _, tc := range []struct {
		name string
		line string
		want stat
		ok   bool
	}{
		{"plain", statLine(40, "bash", 7, "9123"), stat{"bash", 7, "9123", false}, true},
		{"a name with spaces and parentheses", statLine(40, "a) b (c", 1, "5"), stat{"a) b (c", 1, "5", false}, true},
		{"init's parent is 0", statLine(1, "systemd", 0, "1"), stat{"systemd", 0, "1", false}, true},
		{"a zombie has exited", strings.Replace(statLine(40, "claude", 7, "9"), " S ", " Z ", 1), stat{"claude", 7, "9", true}, true},
		{"no name", "40 bash S 1", stat{}, false},
		{"ends before the start time", "40 (bash) S 1 2 3", stat{}, false},
		{"a parent that is not a number", strings.Replace(statLine(40, "x", 7, "1"), " 7 ", " q ", 1), stat{}, false},
		{"a start that is not a number", statLine(40, "x", 7, "soon"), stat{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseStat([]byte(tc.line))
			if (err == nil) != tc.ok || got != tc.want {
				t.Fatalf("parseStat(%q) = %+v, %v; want %+v, ok=%v", tc.line, got, err, tc.want, tc.ok)
			}
		})
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add(statLine(40, "bash", 7, "9123"))
	f.Add(statLine(1, ") (", 0, "1"))
	f.Add("1 (x")
	f.Fuzz(func(t *testing.T, line string) {
		st, err := parseStat([]byte(line))
		if err == nil && (st.ppid < 0 || st.start == "") {
			t.Fatalf("parseStat(%q) accepted %+v", line, st)
		}
	})
}

// readSmall reads a file whole past its first buffer, and a missing one is
// the not-there the walk ends on.
func TestReadProcFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cmdline")
	want := bytes.Repeat([]byte("arg\x00"), 3000)
	if err := os.WriteFile(path, want, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := readSmall(path, make([]byte, 16))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, %v; want %d", len(got), err, len(want))
	}
	if _, err := readSmall(filepath.Join(t.TempDir(), "gone"), make([]byte, 16)); !errors.Is(gone(err), ErrEnded) {
		t.Fatalf("a missing file read as %v, want ErrEnded", gone(err))
	}
}
