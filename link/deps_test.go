package link

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLinkLeavesDeadlinesToItsCaller: a link carries calls; how long an answer
// is worth waiting for (a forward's or an offer's inbox lock wait) is its
// caller's to say, by ctx, so link reads no filer setting.
func TestLinkLeavesDeadlinesToItsCaller(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range ast.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); p == "github.com/sotcomm/sotd/filer" {
				t.Errorf("%s imports %s", f, p)
			}
		}
	}
}
