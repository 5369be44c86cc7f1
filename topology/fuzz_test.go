package topology

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// FuzzParse: Parse never panics; a failure returns no topology and findings
// that name the file and a line within it; a success validates again, and
// written back out as TOML it parses to the same topology.
func FuzzParse(f *testing.F) {
	example, err := os.ReadFile(filepath.Join("..", "hosts.toml.example"))
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		string(example), base, "",
		replace(`hub = "forge"`, `hub = "kiln"`),
		replace("[host.anvil]", `[host."an vil"]`),
		replace(`key = "ed25519:bbbb"`, `key = "ed25519:aaaa"`),
		replace(`addr = "forge.lan:4433"`, `addr = "[::1]:4433"`),
		base + "[host.kiln.lan]\ndaemon = true\n",
		"hub = \"a\"\nhost.a = { daemon = true, addr = \"a:1\", key = \"k\" }\n",
		"hub = \"a\"\n[[host]]\n",
		"\ufeffhub = 'a'\r\n[host.a]\r\ndaemon = true\r\n",
		"hub = \"a\"\n[host.a]\nnote = \"\"\"\nx\n\"\"\"\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		top, warns, err := Parse(data)
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, w := range warns {
			if w.File != "hosts.toml" || w.Line < 0 || w.Line > lines {
				t.Fatalf("warning %q is outside the file's %d lines", w, lines)
			}
		}
		if err != nil {
			if top != nil {
				t.Fatalf("Parse failed (%v) and returned %+v", err, top)
			}
			for _, msg := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(msg, "hosts.toml") {
					t.Fatalf("finding %q does not name the file", msg)
				}
			}
			return
		}
		if err := top.Validate(); err != nil {
			t.Fatalf("a parsed topology does not validate: %v", err)
		}
		again, _, err := Parse(encode(t, top))
		if err != nil {
			t.Fatalf("the topology written out does not parse: %v\n%s", err, encode(t, top))
		}
		if want, got := withoutLines(top), withoutLines(again); !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip:\ngot  %+v\nwant %+v", got, want)
		}
	})
}

// encode writes a topology back out as hosts.toml, with only the keys set.
func encode(t *testing.T, top *Topology) []byte {
	hosts := map[string]map[string]any{}
	for name, h := range top.Hosts {
		m := map[string]any{}
		for k, v := range map[string]any{"daemon": h.Daemon, "frontend": h.Frontend, "addr": h.Addr, "ws_addr": h.WSAddr, "key": h.Key} {
			if v != false && v != "" {
				m[k] = v
			}
		}
		hosts[name] = m
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(map[string]any{"hub": top.Hub, "host": hosts}); err != nil {
		t.Fatalf("encode %+v: %v", top, err)
	}
	return buf.Bytes()
}

func withoutLines(top *Topology) Topology {
	c := Topology{Hub: top.Hub, Hosts: map[string]Host{}}
	for name, h := range top.Hosts {
		h.Line = 0
		c.Hosts[name] = h
	}
	return c
}
