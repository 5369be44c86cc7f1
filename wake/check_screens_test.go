package wake

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestScreens runs `sotd wake check`'s body on every screen in
// testdata/check. Each file is a txtar archive: its comment says what the
// screen shows, then `linux: <output>` and/or `windows: <output>`, the exact
// line CheckFile must print with --windows off and on; its one file, screen,
// is the screen in the screen text format, so `sotd wake check` reads it as
// is.
func TestScreens(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "check", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 30 {
		t.Fatalf("%d screens in testdata/check, want at least 30", len(files))
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			a, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Files) != 1 || a.Files[0].Name != "screen" {
				t.Fatalf("want one file named screen, got %d files", len(a.Files))
			}
			wants := 0
			for _, line := range strings.Split(string(a.Comment), "\n") {
				os, want, ok := strings.Cut(line, ": ")
				if !ok || (os != "linux" && os != "windows") {
					continue
				}
				wants++
				out, code := CheckFile(bytes.NewReader(a.Files[0].Data), os == "windows")
				if out != want {
					t.Errorf("%s:\n got: %s\nwant: %s", os, out, want)
				}
				if wantCode := exitCode(want); code != wantCode {
					t.Errorf("%s: exit %d, want %d", os, code, wantCode)
				}
			}
			if wants == 0 {
				t.Fatal("the comment names no expected output (linux: or windows:)")
			}
		})
	}
}

func exitCode(out string) int {
	if strings.HasPrefix(out, "not free: ") {
		return 1
	}
	return 0
}

// TestScreensCoverTheBrief keeps the table honest: every kind of screen the
// free-prompt test must tell apart has at least one file.
func TestScreensCoverTheBrief(t *testing.T) {
	for _, name := range []string{
		"free", "draft", "dim-suggestion", "cursor-elsewhere", "cursor-one-after-glyph", "cursor-three-after-glyph",
		"labelled-rule-above", "labelled-rule-below", "missing-lower-rule", "panel-main-only",
		"panel-main-and-background-agent", "too-narrow", "windows-gt-glyph", "cjk-draft", "emoji-draft",
		"notice-alone", "notice-plus-one-character", "bare-heavy-glyph", "text-before-glyph", "empty-screen",
		"cursor-row-out-of-bounds", "effort-high-at-start", "effort-high-holds-notice", "panel-main-only-effort-footer",
	} {
		if _, err := os.Stat(filepath.Join("testdata", "check", name+".txtar")); err != nil {
			t.Errorf("no screen for %s: %v", name, err)
		}
	}
}
