package doctor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/registry"
)

// mailTail is how much of each inbox's end the standalone check reads: the
// recent lines, at a cost that does not grow with the inbox.
const mailTail = 64 << 10

// otherBoxes is the evidence, cheap and certain, that a box with no hosts.toml
// is not alone: registry entries another box wrote into this folder, and the
// senders of recent mail (the last 64 KiB of each inbox) that this registry
// does not list and whose derived handle names another box (<name>-<box>).
// A sender that left and a hand-picked name are not counted: neither proves
// another box.
func otherBoxes(e Env, doc *registry.Doc) []string {
	if doc == nil {
		return nil
	}
	var found []string
	own := registry.HostPart(e.Host)
	boxes := map[string]bool{}
	for name, a := range doc.Agents {
		if a.Host != "" && a.Host != e.Host {
			found = append(found, fmt.Sprintf("registry.json lists @%s on box %s", name, a.Host))
			boxes[registry.HostPart(a.Host)] = true
		}
	}
	sort.Strings(found)
	inboxes, _ := filepath.Glob(filepath.Join(e.Home.InboxDir(), "*.jsonl"))
	senders := map[string]bool{}
	for _, p := range inboxes {
		for _, from := range recentSenders(p) {
			if _, listed := doc.Agents[from]; listed {
				continue
			}
			i := strings.LastIndexByte(from, '-')
			if i > 0 && from[i+1:] != own {
				senders[from] = true
			}
		}
	}
	names := make([]string, 0, len(senders))
	for n := range senders {
		names = append(names, "@"+n)
	}
	slices.Sort(names)
	if len(names) > 0 {
		found = append(found, "recent mail came from "+strings.Join(names, ", ")+", which this registry does not list")
	}
	return found
}

// recentSenders is the from of each whole line in the last mailTail bytes of
// the inbox at path; an inbox that cannot be read has none.
func recentSenders(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	cut := false
	if fi, err := f.Stat(); err == nil && fi.Size() > mailTail {
		_, err = f.Seek(-mailTail, io.SeekEnd)
		cut = err == nil
	}
	b, _ := io.ReadAll(io.LimitReader(f, mailTail))
	lines := bytes.Split(b, []byte("\n"))
	var from []string
	for i, l := range lines {
		if i == 0 && cut {
			continue // the seek may have cut it
		}
		var line filer.Line
		if json.Unmarshal(l, &line) == nil && line.From != "" {
			from = append(from, line.From)
		}
	}
	return from
}
