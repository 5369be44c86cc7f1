package wake

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/sotcomm/sotd/rows"
)

// TestScreens runs `sotd wake check`'s body on every screen in
// testdata/check. Each file is a txtar archive: its comment says what the
// screen shows, then `linux: <output>`, `windows: <output>` and/or `codex:
// <output>`, the exact line CheckFile must print as the wake reads a Claude
// Code row off Windows, on Windows, and a Codex row; its one file, screen, is
// the screen in the screen text format, so `sotd wake check` reads it as is.
// A screen with no codex: line is no Codex screen, and the Codex test must not
// find it free or holding the notice.
func TestScreens(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "check", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 30 {
		t.Fatalf("%d screens in testdata/check, want at least 30", len(files))
	}
	readers := map[string]Options{"linux": {}, "windows": {Windows: true}, "codex": {Agent: rows.Codex}}
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
			wants := map[string]bool{}
			for _, line := range strings.Split(string(a.Comment), "\n") {
				reader, want, ok := strings.Cut(line, ": ")
				opt, known := readers[reader]
				if !ok || !known {
					continue
				}
				wants[reader] = true
				out, code := CheckFile(bytes.NewReader(a.Files[0].Data), opt)
				if out != want {
					t.Errorf("%s:\n got: %s\nwant: %s", reader, out, want)
				}
				if wantCode := exitCode(want); code != wantCode {
					t.Errorf("%s: exit %d, want %d", reader, code, wantCode)
				}
			}
			if len(wants) == 0 {
				t.Fatal("the comment names no expected output (linux:, windows: or codex:)")
			}
			if out, code := CheckFile(bytes.NewReader(a.Files[0].Data), readers["codex"]); !wants["codex"] && code != 1 {
				t.Errorf("read as a Codex screen: %s, want not free", out)
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
		"codex-idle", "codex-draft", "codex-draft-blank-first-line", "codex-working", "codex-approval", "codex-model-menu",
		"codex-slash-menu", "codex-trust-folder", "codex-holds-notice", "codex-just-wide-enough", "codex-one-column-short", "codex-wide",
	} {
		if _, err := os.Stat(filepath.Join("testdata", "check", name+".txtar")); err != nil {
			t.Errorf("no screen for %s: %v", name, err)
		}
	}
}
