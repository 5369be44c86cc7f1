package service

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	_ "github.com/sotcomm/sotd/internal/raceexit" // exits without the race detector's second of sleep
)

// trickySpec has a value of every kind a service file must escape.
func trickySpec(bin string) Spec {
	return Spec{
		Binary: bin,
		Env: []Var{
			{"SOT_COMM_HOME", `/home/a b/50% "comm" $HOME\x & <y>`},
			{"SOT_SELF_HOST", "box-1"},
		},
		Path: "/usr/local/bin:/usr/bin:/bin",
		Logs: "/Users/a b/Library/Logs",
	}
}

// TestSystemdUnitVerifies: the unit, with a binary path that needs every
// escape, passes systemd-analyze verify, which also checks that ExecStart names
// an executable file: the quoting resolved to the real path.
func TestSystemdUnitVerifies(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed (Debian: apt-get install systemd); the unit is not verified")
	}
	dir := filepath.Join(t.TempDir(), `bin 50% $x &y`)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "sotd")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	body, err := Render("linux", trickySpec(bin))
	if err != nil {
		t.Fatal(err)
	}
	unit := filepath.Join(t.TempDir(), Name+".service")
	if err := os.WriteFile(unit, body, 0o644); err != nil {
		t.Fatal(err)
	}
	runtimeDir := t.TempDir()
	os.Chmod(runtimeDir, 0o700)
	verify := func() ([]byte, error) {
		cmd := exec.Command(analyze, "--user", "verify", unit)
		cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+runtimeDir)
		return cmd.CombinedOutput()
	}
	if out, err := verify(); err != nil || len(out) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s\nunit:\n%s", err, out, body)
	}
	os.Remove(bin)
	if out, err := verify(); err == nil || !strings.Contains(string(out), "not executable") {
		t.Fatalf("verify passed with the binary gone (%v, %s): the test proves nothing", err, out)
	}
}

func TestSystemdEscapes(t *testing.T) {
	for _, tc := range []struct {
		name, in, exec, assign string
	}{
		{"plain", "/usr/bin/sotd", `"/usr/bin/sotd"`, `"K=/usr/bin/sotd"`},
		{"space", "/a b", `"/a b"`, `"K=/a b"`},
		{"specifier", "/50%h", `"/50%%h"`, `"K=/50%%h"`},
		{"variable", "/$HOME", `"/$HOME"`, `"K=/$HOME"`},
		{"quote and backslash", `/a"b\c`, "", `"K=/a\"b\\c"`},
		{"single quote", `/a'b`, "", `"K=/a'b"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := systemdExec(tc.in)
			if got != tc.exec || (err == nil) != (tc.exec != "") {
				t.Errorf("systemdExec(%q) = %s, %v; want %s", tc.in, got, err, tc.exec)
			}
			if got := systemdAssign("K", tc.in); got != tc.assign {
				t.Errorf("systemdAssign(K, %q) = %s, want %s", tc.in, got, tc.assign)
			}
		})
	}
}

// TestPlistIsWellFormed reads the plist back with encoding/xml and checks
// every key launchd needs, with the values unescaped to what went in.
func TestPlistIsWellFormed(t *testing.T) {
	s := trickySpec(`/Applications/s&o <d>/sotd`)
	body, err := Render("darwin", s)
	if err != nil {
		t.Fatal(err)
	}
	got := readPlist(t, body)
	want := map[string]any{
		"Label":            Label,
		"ProgramArguments": []any{s.Binary, "serve"},
		"EnvironmentVariables": map[string]any{
			"SOT_COMM_HOME": s.Env[0].Value,
			"SOT_SELF_HOST": "box-1",
			"PATH":          s.Path,
		},
		"RunAtLoad":         true,
		"KeepAlive":         map[string]any{"SuccessfulExit": false},
		"ThrottleInterval":  2,
		"ExitTimeOut":       30,
		"ProcessType":       "Background",
		"StandardErrorPath": "/Users/a b/Library/Logs/sotd.log",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("plist reads back as\n%#v\nwant\n%#v\n%s", got, want, body)
	}
	// With nothing carried the dict is empty, not missing.
	bare := readPlist(t, mustRender(t, "darwin", Spec{Binary: "/bin/sotd"}))
	if env, ok := bare["EnvironmentVariables"].(map[string]any); !ok || len(env) != 0 {
		t.Fatalf("bare EnvironmentVariables = %#v", bare["EnvironmentVariables"])
	}
}

func TestWindowsCommands(t *testing.T) {
	body := string(mustRender(t, "windows", Spec{
		Binary: `C:\Program Files\sotd\sotd.exe`,
		Env:    []Var{{"SOT_COMM_HOME", `C:\Users\a\100%comm`}, {"SOT_SELF_HOST", "pc"}},
	}))
	for _, want := range []string{
		`sc.exe create sotd binPath= "\"C:\Program Files\sotd\sotd.exe\" serve" start= auto obj= "%USERDOMAIN%\%USERNAME%"`,
		`reg add "HKLM\SYSTEM\CurrentControlSet\Services\sotd" /v Environment /t REG_MULTI_SZ /d "SOT_COMM_HOME=C:\Users\a\100%%comm\0SOT_SELF_HOST=pc" /f`,
		"sc.exe failure sotd reset= 86400 actions= restart/5000/restart/5000/restart/5000\n",
		"sc.exe start sotd\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("missing %s\nin\n%s", want, body)
		}
	}
	if bare := string(mustRender(t, "windows", Spec{Binary: `C:\sotd.exe`})); strings.Contains(bare, "reg add") {
		t.Errorf("an empty environment still sets one:\n%s", bare)
	}
}

func TestRenderRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		goos string
		s    Spec
		want string
	}{
		{"unknown OS", "plan9", Spec{Binary: "/bin/sotd"}, `no service file for "plan9"`},
		{"relative binary", "linux", Spec{Binary: "sotd"}, "is not a full path on"},
		{"a Windows path for Linux", "linux", Spec{Binary: `C:\sotd.exe`}, "is not a full path on"},
		{"a Linux path for Windows", "windows", Spec{Binary: "/usr/bin/sotd"}, "is not a full path on"},
		{"a quote systemd cannot run", "linux", Spec{Binary: `/opt/it's/sotd`}, "systemd cannot run a binary"},
		{"line break in a value", "darwin", Spec{Binary: "/bin/sotd", Env: []Var{{"SOT_COMM_HOME", "/a\nb"}}}, "$SOT_COMM_HOME holds a line break"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Render(tc.goos, tc.s); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Render = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestCurrentCarriesTheHome(t *testing.T) {
	t.Setenv("SOT_COMM_HOME", "/srv/comm")
	t.Setenv("SOT_SOCKET", "")
	s, err := Current()
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(s.Binary) || !slicesHas(s.Env, Var{"SOT_COMM_HOME", "/srv/comm"}) || slicesHasName(s.Env, "SOT_SOCKET") {
		t.Fatalf("Current() = %+v", s)
	}
}

func slicesHas(vs []Var, v Var) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

func slicesHasName(vs []Var, n string) bool {
	for _, x := range vs {
		if x.Name == n {
			return true
		}
	}
	return false
}

func mustRender(t *testing.T, goos string, s Spec) []byte {
	t.Helper()
	b, err := Render(goos, s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readPlist decodes a property list's top dict into Go values.
func readPlist(t *testing.T, body []byte) map[string]any {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(body))
	d.Strict = true
	for {
		tok, err := d.Token()
		if err != nil {
			t.Fatalf("no <plist><dict>: %v\n%s", err, body)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "dict" {
			v, err := plistValue(d, se)
			if err != nil {
				t.Fatalf("%v\n%s", err, body)
			}
			if _, err := d.Token(); err != nil { // </plist>
				t.Fatal(err)
			}
			if _, err := d.Token(); err != io.EOF {
				for ; err == nil; _, err = d.Token() {
				}
				if err != io.EOF {
					t.Fatalf("after </plist>: %v", err)
				}
			}
			return v.(map[string]any)
		}
	}
}

func plistValue(d *xml.Decoder, se xml.StartElement) (any, error) {
	switch se.Name.Local {
	case "string", "integer", "key":
		var s string
		if err := d.DecodeElement(&s, &se); err != nil {
			return nil, err
		}
		if se.Name.Local == "integer" {
			return strconv.Atoi(s)
		}
		return s, nil
	case "true", "false":
		return se.Name.Local == "true", d.Skip()
	case "array", "dict":
		var items []any
		for {
			tok, err := d.Token()
			if err != nil {
				return nil, err
			}
			if _, end := tok.(xml.EndElement); end {
				break
			}
			if child, ok := tok.(xml.StartElement); ok {
				v, err := plistValue(d, child)
				if err != nil {
					return nil, err
				}
				items = append(items, v)
			}
		}
		if se.Name.Local == "array" {
			return items, nil
		}
		if len(items)%2 != 0 {
			return nil, fmt.Errorf("a dict with %d items: a key without a value", len(items))
		}
		m := map[string]any{}
		for i := 0; i < len(items); i += 2 {
			k, ok := items[i].(string)
			if !ok {
				return nil, fmt.Errorf("dict key %v is not a <key>", items[i])
			}
			m[k] = items[i+1]
		}
		return m, nil
	}
	return nil, fmt.Errorf("unexpected <%s>", se.Name.Local)
}
