package ancestry

import (
	"encoding/binary"
	"slices"
	"strings"
	"testing"
)

// procargs builds a kern.procargs2 record as macOS lays it out.
func procargs(argc int32, exe string, pad int, rest string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(argc))
	b = append(b, exe...)
	b = append(b, make([]byte, 1+pad)...)
	return append(b, rest...)
}

func TestParseProcArgs(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rec     []byte
		exe     string
		argv    []string
		wantErr string
	}{
		{"arguments then environment", procargs(3, "/usr/local/bin/node", 6, "node\x00/x/@openai/codex/bin/codex.js\x00exec\x00HOME=/u\x00TERM=x\x00"),
			"/usr/local/bin/node", []string{"node", "/x/@openai/codex/bin/codex.js", "exec"}, ""},
		{"no padding", procargs(1, "/bin/zsh", 0, "-zsh\x00"), "/bin/zsh", []string{"-zsh"}, ""},
		{"empty and spaced arguments", procargs(3, "/a", 2, "a b\x00\x00c\x00"), "/a", []string{"a b", "", "c"}, ""},
		{"no arguments", procargs(0, "/a", 0, ""), "/a", []string{}, ""},
		{"ends inside the arguments", procargs(3, "/a", 0, "a\x00b"), "", nil, "ends after 1 of 3"},
		{"a count beyond the record", procargs(4096, "/a", 0, "a\x00"), "", nil, "does not fit"},
		{"a negative count", procargs(-1, "/a", 0, "a\x00"), "", nil, "does not fit"},
		{"shorter than the count", []byte{1, 0}, "", nil, "shorter than"},
		{"the path does not end", append(binary.LittleEndian.AppendUint32(nil, 0), "/bin/zsh"...), "", nil, "does not end"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exe, argv, err := parseProcArgs(tc.rec)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("parseProcArgs error = %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || exe != tc.exe || !slices.Equal(argv, tc.argv) {
				t.Fatalf("parseProcArgs = %q, %q, %v; want %q, %q", exe, argv, err, tc.exe, tc.argv)
			}
		})
	}
}

func FuzzParseProcArgs(f *testing.F) {
	f.Add(procargs(2, "/bin/node", 3, "node\x00cli.js\x00K=V\x00"))
	f.Add(procargs(5, "/a", 0, "a\x00"))
	f.Add([]byte{0xff, 0xff, 0xff, 0x7f})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, argv, err := parseProcArgs(b)
		if err == nil && len(argv) != int(binary.LittleEndian.Uint32(b)) {
			t.Fatalf("parsed %d arguments of a record counting %d", len(argv), binary.LittleEndian.Uint32(b))
		}
	})
}
