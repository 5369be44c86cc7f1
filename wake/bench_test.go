package wake

import (
	"os"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/sotcomm/sotd/screen"
)

// The wake loop checks every Claude row every 2 s, and samples the still
// region a few times during a 1.5 s hold; these are the costs per screen.
func benchScreen(b *testing.B, name string) *screen.Screen {
	a, err := txtar.ParseFile("testdata/check/" + name + ".txtar")
	if err != nil {
		b.Fatal(err)
	}
	s, err := screen.Parse(strings.NewReader(string(a.Files[0].Data)))
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func BenchmarkCheck(b *testing.B) {
	for _, name := range []string{"free", "panel-main-and-background-agent", "draft"} {
		s := benchScreen(b, name)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				Check(s, Options{})
			}
		})
	}
}

func BenchmarkStillRegion(b *testing.B) {
	s := benchScreen(b, "free")
	for b.Loop() {
		StillRegion(s, Options{})
	}
}

func BenchmarkCheckFile(b *testing.B) {
	data, err := os.ReadFile("testdata/check/free.txtar")
	if err != nil {
		b.Fatal(err)
	}
	screenText := string(txtar.Parse(data).Files[0].Data)
	for b.Loop() {
		CheckFile(strings.NewReader(screenText), Options{})
	}
}
