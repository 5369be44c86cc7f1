package filer

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// LineHash agrees with POSIX cksum(1) of the line with its NUL bytes and newline
// removed, as the shell client hashes it (tr -d '\0\n' | cksum).
func TestLineHashMatchesCksum(t *testing.T) {
	bin, err := exec.LookPath("cksum")
	if err != nil {
		t.Skip("no cksum(1) on this system")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	var lines [][]byte
	var files []string
	for i := range 300 {
		l := randomLine(rng, i)
		lines = append(lines, l)
		stripped := bytes.ReplaceAll(bytes.ReplaceAll(l, []byte{0}, nil), []byte{'\n'}, nil)
		p := filepath.Join(dir, fmt.Sprintf("l%03d", i))
		if err := os.WriteFile(p, stripped, 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	out, err := exec.Command(bin, files...).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(got) != len(lines) {
		t.Fatalf("cksum printed %d lines for %d files", len(got), len(lines))
	}
	for i, row := range got {
		f := strings.Fields(row) // "<crc> <len> <file>"
		if want := f[0] + "-" + f[1]; LineHash(lines[i]) != want {
			t.Fatalf("line %d (%d bytes, %q…): LineHash %s, cksum %s", i, len(lines[i]), lines[i][:min(40, len(lines[i]))], LineHash(lines[i]), want)
		}
	}
}

// randomLine varies length (0 to past 64 KiB, so the length takes 1–3 bytes in the
// CRC), content (NULs, high bytes, quotes) and whether a newline ends it.
func randomLine(rng *rand.Rand, i int) []byte {
	n := rng.IntN(300)
	switch i % 10 {
	case 0:
		n = 0
	case 1:
		n = 255 + rng.IntN(3)
	case 2:
		n = 65535 + rng.IntN(3)
	case 3:
		n = 70000 + rng.IntN(5000)
	}
	b := make([]byte, n)
	for j := range b {
		switch r := rng.IntN(20); {
		case r == 0:
			b[j] = 0
		case r == 1:
			b[j] = byte(rng.IntN(256))
			if b[j] == '\n' { // a line holds no newline but its last byte
				b[j] = 0xff
			}
		default:
			b[j] = byte(' ' + rng.IntN(95))
		}
	}
	if i%2 == 0 {
		b = append(b, '\n')
	}
	return b
}

func TestCksumKnownValues(t *testing.T) {
	tests := []struct {
		in   string
		crc  uint32
		size int64
	}{
		{"", 4294967295, 0},
		{"123456789", 930766865, 9}, // CRC-32/CKSUM's check value
	}
	for _, tt := range tests {
		crc, n := Cksum([]byte(tt.in))
		if crc != tt.crc || n != tt.size {
			t.Errorf("Cksum(%q) = %d %d, want %d %d", tt.in, crc, n, tt.crc, tt.size)
		}
	}
}
