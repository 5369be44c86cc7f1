package topology

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// base is a valid two-box file; cases below change one thing in it.
const base = `hub = "forge"

[host.forge]
daemon = true
addr = "forge.lan:4433"
key = "ed25519:aaaa"

[host.anvil]
daemon = true
frontend = true
key = "ed25519:bbbb"
`

func TestParseValid(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want *Topology
	}{
		{"base", base, &Topology{Hub: "forge", HubLine: 1, Hosts: map[string]Host{
			"forge": {Name: "forge", Daemon: true, Addr: "forge.lan:4433", Key: "ed25519:aaaa", Line: 3},
			"anvil": {Name: "anvil", Daemon: true, Frontend: true, Key: "ed25519:bbbb", Line: 8},
		}}},
		{"top-level dotted keys, quoted keys, ws_addr and IPv6", `# comment
hub = "forge"
host.forge.daemon = true
host.forge.addr = "[fd00::1]:4433"
host.forge."ws_addr" = "10.0.0.1:4443"
host.forge.key = 'ed25519:aaaa'

[host.anvil]
'daemon' = true
key = "ed25519:bbbb"
`, &Topology{Hub: "forge", HubLine: 2, Hosts: map[string]Host{
			"forge": {Name: "forge", Daemon: true, Addr: "[fd00::1]:4433", WSAddr: "10.0.0.1:4443", Key: "ed25519:aaaa", Line: 3},
			"anvil": {Name: "anvil", Daemon: true, Key: "ed25519:bbbb", Line: 8},
		}}},
		{"dotted keys and an inline table under [host]", `hub = "forge"
[host]
forge.daemon = true
forge.addr = "forge:1"
forge.key = "k1"
"anvil" = { frontend = true, daemon = true,
  key = "k2" }
`, &Topology{Hub: "forge", HubLine: 1, Hosts: map[string]Host{
			"forge": {Name: "forge", Daemon: true, Addr: "forge:1", Key: "k1", Line: 3},
			"anvil": {Name: "anvil", Daemon: true, Frontend: true, Key: "k2", Line: 6},
		}}},
		{"CRLF, a UTF-8 byte-order mark and a quoted dotted name", "\ufeffhub = \"a.b_c-9\"\r\n\r\n[host.\"a.b_c-9\"]\r\ndaemon = true\r\naddr = \"a:1\"\r\nkey = \"k\"\r\n",
			&Topology{Hub: "a.b_c-9", HubLine: 1, Hosts: map[string]Host{"a.b_c-9": {Name: "a.b_c-9", Daemon: true, Addr: "a:1", Key: "k", Line: 3}}}},
		{"names of one character and of 64", "hub = \"0\"\n[host.0]\ndaemon = true\naddr = \"h:1\"\nkey = \"k\"\n[host." + strings.Repeat("z", 64) + "]\nfrontend = false\ndaemon = true\nkey = \"k2\"\n",
			&Topology{Hub: "0", HubLine: 1, Hosts: map[string]Host{
				"0":                     {Name: "0", Daemon: true, Addr: "h:1", Key: "k", Line: 2},
				strings.Repeat("z", 64): {Name: strings.Repeat("z", 64), Daemon: true, Key: "k2", Line: 6},
			}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, warns, err := Parse([]byte(tc.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if len(warns) != 0 {
				t.Errorf("warnings: %v", warns)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// replace swaps old for new in base, once, so each case reads as a diff.
func replace(old, new string) string {
	if !strings.Contains(base, old) {
		panic("base has no " + old)
	}
	return strings.Replace(base, old, new, 1)
}

func TestParseFindings(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		wantErrs  []string // each error's full text, in order
		wantWarns []string
	}{
		{"not TOML", `hub = "forge`, []string{`hosts.toml:1: not valid TOML: unexpected EOF; expected '"'`}, nil},
		{"a key given twice", base + "[host.forge]\n", []string{`hosts.toml:12: not valid TOML: Key 'host.forge' has already been defined.`}, nil},
		{"UTF-16", "\xff\xfeh\x00u\x00b\x00", []string{`hosts.toml:1: not valid TOML: files cannot contain NULL bytes; probably using UTF-16; TOML files must be UTF-8`}, nil},
		{"unknown top-level key", replace(`hub = "forge"`, "hub = \"forge\"\nport = 4433"),
			[]string{`hosts.toml:2: unknown top-level key "port": hosts.toml has only hub = "<box>" (or hubs = ["<box>", …]) and [host.<box>] tables, and a key under a box belongs below its [host.<box>] line`}, nil},
		{"misspelt host table", replace("[host.anvil]", "[hosts.anvil]"),
			[]string{`hosts.toml:8: unknown top-level key "hosts": hosts.toml has only hub = "<box>" (or hubs = ["<box>", …]) and [host.<box>] tables, and a key under a box belongs below its [host.<box>] line`}, nil},
		{"hub not a string", replace(`hub = "forge"`, `hub = 7`),
			[]string{`hosts.toml:1: hub must be a quoted string, not the number 7`}, nil},
		{"no hub", replace(`hub = "forge"`, ``),
			[]string{`hosts.toml: names no hub: add hub = "<box>" (or hubs = ["<box>", "<box>"] for several) above the first [host.<box>], naming the box whose daemon every other box can reach`}, nil},
		{"empty file", "", []string{`hosts.toml: names no hub: add hub = "<box>" (or hubs = ["<box>", "<box>"] for several) above the first [host.<box>], naming the box whose daemon every other box can reach`}, nil},
		{"hub not listed", replace(`hub = "forge"`, `hub = "kiln"`),
			[]string{`hosts.toml:1: hub = "kiln" names a box with no [host.kiln] table: add one with daemon = true, addr and key`}, nil},
		{"hub not a box name", replace(`hub = "forge"`, `hub = "Forge"`),
			[]string{`hosts.toml:1: hub: box name "Forge" has 'F' at byte 0: a box name is lowercase letters, digits, '.', '_' and '-', starting with a letter or digit`}, nil},
		{"hub with daemon = false", replace("[host.forge]\ndaemon = true", "[host.forge]\ndaemon = false"),
			[]string{`hosts.toml:4: [host.forge] is the hub, so it needs daemon = true: its daemon is the one every other box links to`},
			[]string{`hosts.toml:3: [host.forge] sets neither daemon nor frontend = true, so it takes no part in the network`}},
		{"hub without daemon", replace("[host.forge]\ndaemon = true\n", "[host.forge]\nfrontend = true\n"),
			[]string{`hosts.toml:3: [host.forge] is the hub, so it needs daemon = true: its daemon is the one every other box links to`}, nil},
		{"hub without addr", replace("addr = \"forge.lan:4433\"\n", ""),
			[]string{`hosts.toml:3: [host.forge] is the hub, so it needs addr = "<host>:<port>": every other box dials it there`}, nil},
		{"guest without key", replace("frontend = true\nkey = \"ed25519:bbbb\"\n", "frontend = true\n"),
			[]string{"hosts.toml:8: [host.anvil] needs key = \"<fingerprint>\": linked boxes pin each other's keys; copy the last field `sotd id` prints on anvil"}, nil},
		{"frontend-only box without key", base + "[host.kiln]\nfrontend = true\n",
			[]string{"hosts.toml:12: [host.kiln] needs key = \"<fingerprint>\": linked boxes pin each other's keys; copy the last field `sotd id` prints on kiln"},
			[]string{`hosts.toml:12: [host.kiln] has frontend = true and no daemon: only a daemon holds a link to the hub, so kiln will always be reported as not linked`}},
		{"two boxes, one key", replace(`key = "ed25519:bbbb"`, `key = "ed25519:aaaa"`),
			[]string{"hosts.toml:11: [host.anvil] has the same key as [host.forge]: each box has its own identity, so one of them is wrong; run `sotd id` on each and copy its last field"}, nil},
		{"key with a space", replace(`key = "ed25519:bbbb"`, `key = "ed25519: bbbb"`),
			[]string{"hosts.toml:11: key in [host.anvil]: \"ed25519: bbbb\" has ' ' at byte 8: a key is one token of printable ASCII, the last field `sotd id` prints"}, nil},
		{"key with a quote", replace(`key = "ed25519:bbbb"`, `key = 'ed25519:"bbbb"'`),
			[]string{"hosts.toml:11: key in [host.anvil]: \"ed25519:\\\"bbbb\\\"\" has '\"' at byte 8: a key is one token of printable ASCII, the last field `sotd id` prints"}, nil},
		{"key not ASCII", replace(`key = "ed25519:bbbb"`, `key = "ed25519:bébé"`),
			[]string{"hosts.toml:11: key in [host.anvil]: \"ed25519:bébé\" has 'Ã' at byte 9: a key is one token of printable ASCII, the last field `sotd id` prints"}, nil},
		{"empty key on a daemon box", replace(`key = "ed25519:bbbb"`, `key = ""`),
			[]string{"hosts.toml:8: [host.anvil] needs key = \"<fingerprint>\": linked boxes pin each other's keys; copy the last field `sotd id` prints on anvil"}, nil},
		{"addr without port", replace(`addr = "forge.lan:4433"`, `addr = "forge.lan"`),
			[]string{`hosts.toml:5: addr in [host.forge]: "forge.lan" is not host:port (address forge.lan: missing port in address); write it as "box-a.lan:4433" or "[fd00::1]:4433"`}, nil},
		{"addr without host", replace(`addr = "forge.lan:4433"`, `addr = ":4433"`),
			[]string{`hosts.toml:5: addr in [host.forge]: ":4433" names no host; other boxes dial it, so give the box's name or address, such as "box-a.lan:4433"`}, nil},
		{"addr port 0", replace(`addr = "forge.lan:4433"`, `addr = "forge.lan:0"`),
			[]string{`hosts.toml:5: addr in [host.forge]: "forge.lan:0": port "0" is not a number from 1 to 65535`}, nil},
		{"addr port by name", replace(`addr = "forge.lan:4433"`, `addr = "forge.lan:https"`),
			[]string{`hosts.toml:5: addr in [host.forge]: "forge.lan:https": port "https" is not a number from 1 to 65535`}, nil},
		{"addr port too big", replace(`addr = "forge.lan:4433"`, `addr = "forge.lan:65536"`),
			[]string{`hosts.toml:5: addr in [host.forge]: "forge.lan:65536": port "65536" is not a number from 1 to 65535`}, nil},
		{"addr with a space", replace(`addr = "forge.lan:4433"`, `addr = "forge lan:4433"`),
			[]string{`hosts.toml:5: addr in [host.forge]: "forge lan:4433" has ' ' at byte 5; write it as host:port, such as "box-a.lan:4433"`}, nil},
		{"ws_addr checked like addr", replace("[host.anvil]\n", "[host.anvil]\nws_addr = \"anvil.lan\"\n"),
			[]string{`hosts.toml:9: ws_addr in [host.anvil]: "anvil.lan" is not host:port (address anvil.lan: missing port in address); write it as "box-a.lan:4433" or "[fd00::1]:4433"`}, nil},
		{"upper-case box name", replace("[host.anvil]", "[host.Anvil]"),
			[]string{`hosts.toml:8: [host."Anvil"]: box name "Anvil" has 'A' at byte 0: a box name is lowercase letters, digits, '.', '_' and '-', starting with a letter or digit`}, nil},
		{"box name starting with '-'", replace("[host.anvil]", "[host.-anvil]"),
			[]string{`hosts.toml:8: [host."-anvil"]: box name "-anvil" has '-' at byte 0: a box name is lowercase letters, digits, '.', '_' and '-', starting with a letter or digit`}, nil},
		{"box name with a space", replace("[host.anvil]", `[host."an vil"]`),
			[]string{`hosts.toml:8: [host."an vil"]: box name "an vil" has ' ' at byte 2: a box name is lowercase letters, digits, '.', '_' and '-', starting with a letter or digit`}, nil},
		{"empty box name", replace("[host.anvil]", `[host.""]`),
			[]string{`hosts.toml:8: [host.""]: the box name is empty`}, nil},
		{"box name too long", replace("[host.anvil]", "[host."+strings.Repeat("a", 65)+"]"),
			[]string{`hosts.toml:8: [host."` + strings.Repeat("a", 65) + `"]: box name "` + strings.Repeat("a", 65) + `" is 65 characters, over the 64 allowed`}, nil},
		{"unquoted dotted box name is a subtable", base + "[host.kiln.lan]\ndaemon = true\nkey = \"k\"\n", nil,
			[]string{
				`hosts.toml:12: unknown table "lan" in [host.kiln] is ignored; a box name with a '.' in it is quoted, as in [host."kiln.lan"]`,
				`hosts.toml:12: [host.kiln] sets neither daemon nor frontend = true, so it takes no part in the network`,
			}},
		{"daemon quoted", replace("[host.anvil]\ndaemon = true", "[host.anvil]\ndaemon = \"true\""),
			[]string{`hosts.toml:9: daemon in [host.anvil] must be true or false (unquoted), not the string "true"`}, nil},
		{"frontend a number", replace("frontend = true", "frontend = 1"),
			[]string{`hosts.toml:10: frontend in [host.anvil] must be true or false (unquoted), not the number 1`}, nil},
		{"addr a number", replace(`addr = "forge.lan:4433"`, `addr = 4433`),
			[]string{`hosts.toml:5: addr in [host.forge] must be a quoted string, not the number 4433`}, nil},
		{"key an array", replace(`key = "ed25519:bbbb"`, `key = ["ed25519:bbbb"]`),
			[]string{`hosts.toml:11: key in [host.anvil] must be a quoted string, not an array`}, nil},
		{"key a date", replace(`key = "ed25519:bbbb"`, `key = 2026-05-29`),
			[]string{`hosts.toml:11: key in [host.anvil] must be a quoted string, not a date`}, nil},
		{"host not a table", "hub = \"forge\"\nhost = \"forge\"\n",
			[]string{`hosts.toml:2: host must be tables, one per box, each headed [host.<box>], not the string "forge"`}, nil},
		{"host an array of tables", "hub = \"forge\"\n[[host]]\ndaemon = true\n",
			[]string{`hosts.toml:2: host must be tables, one per box, each headed [host.<box>], not an array of tables`}, nil},
		{"box not a table", "hub = \"forge\"\n[host]\nforge = true\n",
			[]string{`hosts.toml:3: [host.forge] must be a table of the box's keys, not the boolean true`}, nil},
		{"type errors are reported alone and in line order", replace(`hub = "forge"`, `hub = 1`) + "[host.kiln]\ndaemon = 2\n",
			[]string{`hosts.toml:1: hub must be a quoted string, not the number 1`, `hosts.toml:13: daemon in [host.kiln] must be true or false (unquoted), not the number 2`}, nil},
		{"rule errors are all reported, in line order", replace(`hub = "forge"`, `hub = "kiln"`) + "[host.b]\ndaemon = true\naddr = \"b\"\n",
			[]string{
				`hosts.toml:1: hub = "kiln" names a box with no [host.kiln] table: add one with daemon = true, addr and key`,
				"hosts.toml:12: [host.b] needs key = \"<fingerprint>\": linked boxes pin each other's keys; copy the last field `sotd id` prints on b",
				`hosts.toml:14: addr in [host.b]: "b" is not host:port (address b: missing port in address); write it as "box-a.lan:4433" or "[fd00::1]:4433"`,
			}, nil},
		{"unknown host key is a warning", replace("[host.anvil]\n", "[host.anvil]\nport = 4433\n"), nil,
			[]string{`hosts.toml:9: unknown key "port" in [host.anvil] is ignored; a box's keys are daemon, frontend, addr, ws_addr, key`}},
		{"misspelt host keys suggest the right one", replace("[host.anvil]\n", "[host.anvil]\nDaemon = true\nws-addr = \"a:1\"\nextra = { a = 1 }\n"), nil,
			[]string{
				`hosts.toml:9: unknown key "Daemon" in [host.anvil] is ignored; did you mean daemon?`,
				`hosts.toml:10: unknown key "ws-addr" in [host.anvil] is ignored; did you mean ws_addr?`,
				`hosts.toml:11: unknown table "extra" in [host.anvil] is ignored; a box name with a '.' in it is quoted, as in [host."anvil.extra"]`,
			}},
		{"a box that takes no part", base + "[host.kiln]\naddr = \"kiln:1\"\n", nil,
			[]string{`hosts.toml:12: [host.kiln] sets neither daemon nor frontend = true, so it takes no part in the network`}},
		{"frontend without daemon names the daemon line", base + "[host.kiln]\nkey = \"k\"\ndaemon = false\nfrontend = true\n", nil,
			[]string{`hosts.toml:14: [host.kiln] has frontend = true and no daemon: only a daemon holds a link to the hub, so kiln will always be reported as not linked`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, warns, err := Parse([]byte(tc.in))
			if len(tc.wantErrs) == 0 && err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if len(tc.wantErrs) > 0 {
				if err == nil {
					t.Fatalf("Parse succeeded, want %q", tc.wantErrs)
				}
				if got != nil {
					t.Errorf("a failed Parse returned a topology: %+v", got)
				}
				if lines := strings.Split(err.Error(), "\n"); !reflect.DeepEqual(lines, tc.wantErrs) {
					t.Errorf("errors:\ngot  %q\nwant %q", lines, tc.wantErrs)
				}
				var p *Problem
				if !errors.As(err, &p) || p.String() != tc.wantErrs[0] {
					t.Errorf("errors.As(*Problem) = %v, want the first finding", p)
				}
			}
			var ws []string
			for _, w := range warns {
				ws = append(ws, w.String())
			}
			if !reflect.DeepEqual(ws, tc.wantWarns) {
				t.Errorf("warnings:\ngot  %q\nwant %q", ws, tc.wantWarns)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.toml", base+"[host.anvil.extra]\n")
	bad := write("bad.toml", replace(`hub = "forge"`, `hub = "kiln"`))
	big := write("big.toml", base+"# "+strings.Repeat("x", maxFile)+"\n")
	asDir := filepath.Join(dir, "is-a-dir.toml")
	if err := os.Mkdir(asDir, 0o700); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name     string
		path     string
		notExist bool
		wantErr  string // a substring; "" for success
		wantWarn string
	}{
		{"valid, with a warning naming the path", good, false, "", good + ":12: unknown table \"extra\" in [host.anvil] is ignored"},
		{"findings name the path", bad, false, bad + `:1: hub = "kiln" names a box with no [host.kiln] table`, ""},
		{"missing is fs.ErrNotExist", filepath.Join(dir, "absent.toml"), true, "read hosts.toml: open ", ""},
		{"under a file is not 'missing'", filepath.Join(good, "hosts.toml"), false, "read hosts.toml: open ", ""},
		{"a directory is unreadable, not missing", asDir, false, "read hosts.toml " + asDir + ": ", ""},
		{"too large", big, false, big + ": is over 1048576 bytes, so it is not a hosts.toml; point $SOT_HOSTS at the right file", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			top, warns, err := Load(tc.path)
			if errors.Is(err, fs.ErrNotExist) != tc.notExist {
				t.Errorf("errors.Is(%v, fs.ErrNotExist) = %v, want %v", err, !tc.notExist, tc.notExist)
			}
			if tc.wantErr == "" {
				if err != nil || top == nil {
					t.Fatalf("Load = %v, %v", top, err)
				}
			} else if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
			}
			if tc.wantWarn != "" && (len(warns) != 1 || !strings.HasPrefix(warns[0].String(), tc.wantWarn)) {
				t.Errorf("warnings = %v, want one starting %q", warns, tc.wantWarn)
			}
		})
	}
}
