package registry

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseRefusesWhatIsNotARegistry(t *testing.T) {
	tests := []struct {
		name, in, why string
	}{
		{"empty", "", "is empty"},
		{"only white space", " \n\t", "is empty"},
		{"not JSON", "{agents:{}}", "is not JSON"},
		{"truncated", `{"agents":{"a":{"host":"x"`, "is not JSON"},
		{"byte-order mark", "\xef\xbb\xbf{\"agents\":{}}", "is not JSON"},
		{"two documents", `{"agents":{}}{"agents":{}}`, "more than one JSON document"},
		{"a number after the document", `{"agents":{}} 1`, "more than one JSON document"},
		{"garbage after the document", `{"agents":{}} }`, "after its first document"},
		{"an array", `[{"agents":{}}]`, "is not a JSON object"},
		{"a string", `"agents"`, "is not a JSON object"},
		{"null", `null`, "is not a JSON object"},
		{"no agents", `{"protocol_version":1}`, "has no .agents"},
		{"agents null", `{"agents":null}`, "not an object"},
		{"agents an array", `{"agents":[]}`, "not an object"},
		{"agents a string", `{"agents":"{}"}`, "not an object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse([]byte(tc.in))
			if !errors.Is(err, ErrUnreadable) || d != nil {
				t.Fatalf("Parse(%q) = %v, %v; want ErrUnreadable", tc.in, d, err)
			}
			if !strings.Contains(err.Error(), tc.why) {
				t.Errorf("error %q does not say %q", err, tc.why)
			}
		})
	}
}

func TestParseReadsRows(t *testing.T) {
	in := `{"protocol_version": 1, "agents": {
	  "a-box": {"host":"box","workspace_id":"","repo":"R","root":"/p/a","expertise":["go","jq"],
	            "status":"idle","joined":"2026-05-29T18:00:00Z","last_seen":"2026-05-29T18:04:00Z",
	            "state":"working","summary":"s","status_at":"2026-05-29T18:04:00Z","floor":"user",
	            "dialog":"Allow?","question":"q","waiting":"w","done":true,"note":"n","stop_at":"2026-05-29T18:04:01Z"},
	  "odd": 5}}`
	d, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := Entry{Host: "box", Repo: "R", Root: "/p/a", Expertise: []string{"go", "jq"}, Status: "idle",
		Joined: "2026-05-29T18:00:00Z", LastSeen: "2026-05-29T18:04:00Z", State: "working", Summary: "s",
		StatusAt: "2026-05-29T18:04:00Z", Floor: "user", Dialog: "Allow?", Question: "q", Waiting: "w",
		Done: true, Note: "n", StopAt: "2026-05-29T18:04:01Z"}
	got := *d.Agents["a-box"]
	got.keep = 0
	if !reflect.DeepEqual(got, want) {
		t.Errorf("row:\n got %+v\nwant %+v", got, want)
	}
	if d.ProtocolVersion != 1 || d.VersionMismatch() {
		t.Errorf("version %d, mismatch %v", d.ProtocolVersion, d.VersionMismatch())
	}
	if e, ok := d.Agents["odd"]; !ok || e.Host != "" || string(e.odd) != "5" {
		t.Errorf("a row that is not an object must read as an empty row, kept verbatim: %+v", e)
	}
}

func TestVersionMismatch(t *testing.T) {
	for in, want := range map[string]bool{
		`{"protocol_version":1,"agents":{}}`:   false,
		`{"protocol_version":2,"agents":{}}`:   true,
		`{"agents":{}}`:                        true,
		`{"protocol_version":"1","agents":{}}`: true,
	} {
		d, err := Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if d.VersionMismatch() != want {
			t.Errorf("%s: VersionMismatch = %v, want %v", in, !want, want)
		}
	}
}

// The merge-only promise: what another client wrote survives a read-modify-write
// with its value, and a cleared fact loses its key.
func TestMergeOnlyKeepsWhatItDoesNotKnow(t *testing.T) {
	in := `{
	  "protocol_version": 1,
	  "relay": {"endpoint": "tcp://hub:7", "weights": [1, 2.50, 1e3, -0], "html": "<b>&amp;</b>"},
	  "zz_last": null,
	  "agents": {
	    "a-box": {
	      "host": "box", "workspace_id": "", "repo": "R", "root": "/p/a", "expertise": [],
	      "status": "idle", "joined": "2026-05-29T18:00:00Z", "last_seen": "2026-05-29T18:04:00Z",
	      "tmux": {"socket": "/tmp/t", "pane_id": "%3"}, "pane_id": "%3", "nonce": 12345678901234567890,
	      "floor": "user", "question": "q?", "summary": "", "state": 7, "dialog": null
	    },
	    "legacy": {"host": "old", "turn_origin": "user", "sticky": true}
	  }
	}`
	d, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	e := d.Agents["a-box"]
	e.Floor = "" // clear a fact
	e.LastSeen = "2026-05-29T18:05:00Z"
	out, err := d.Marshal()
	if err != nil {
		t.Fatal(err)
	}

	var before, after map[string]any
	decodeNumbers(t, in, &before)
	decodeNumbers(t, string(out), &after)
	// What changed is exactly what was changed; a non-string "state" and a null
	// "dialog" are another client's values and are kept as they were.
	row := before["agents"].(map[string]any)["a-box"].(map[string]any)
	delete(row, "floor")
	row["last_seen"] = "2026-05-29T18:05:00Z"
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("merge-only write changed more than it meant to:\nbefore %v\nafter  %v\nfile:\n%s", before, after, out)
	}
	if strings.Contains(string(out), `\u003c`) {
		t.Errorf("kept text was HTML-escaped:\n%s", out)
	}
}

func decodeNumbers(t *testing.T, s string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%v in:\n%s", err, s)
	}
}

func TestMarshalLayout(t *testing.T) {
	d := &Doc{ProtocolVersion: 1, Agents: map[string]*Entry{
		"b-box": {Host: "box", Expertise: []string{"go"}, State: "idle", Note: "a <note>",
			Extra: map[string]json.RawMessage{"pane_id": json.RawMessage(`"%1"`)}},
		"a-box": {Host: "box", Done: true},
	}, Extra: map[string]json.RawMessage{"hub": json.RawMessage(`{"x":1}`)}}
	got, err := d.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "protocol_version": 1,
  "agents": {
    "a-box": {
      "host": "box",
      "done": true
    },
    "b-box": {
      "host": "box",
      "expertise": ["go"],
      "state": "idle",
      "note": "a <note>",
      "pane_id": "%1"
    }
  },
  "hub": {"x":1}
}
`
	if string(got) != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestMarshalRefusesAMissingRow(t *testing.T) {
	d := &Doc{Agents: map[string]*Entry{"a": nil}}
	if _, err := d.Marshal(); err == nil {
		t.Fatal("a nil row must not be written as null")
	}
}

// FuzzParse: whatever parses survives a round trip, Parse(Marshal(d)) == d, and the
// bytes Marshal writes are stable.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"protocol_version":1,"agents":{}}`,
		`{"agents":{"a":{"host":"h","expertise":["x"],"done":true,"floor":"","x":{"y":[1,null]}}},"z":1}`,
		`{"agents":{"a":5,"b":null,"c":[1],"d":{}}}`,
		`{"agents":{"a":{"host":5,"done":"yes","expertise":[null],"state":null}},"protocol_version":1.5}`,
		`{"agents":{"a":{"done":false,"workspace_id":""}},"protocol_version":-0}`,
		"{\"agents\":{\"\xff\":{\"note\":\"\xfe<&>\"}}}",
		`{"agents":{}, "agents":{"a":{}}}`,
		`{"agents":{}} {}`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		d1, err := Parse(in)
		if err != nil {
			if !errors.Is(err, ErrUnreadable) {
				t.Fatalf("refusal %v does not wrap ErrUnreadable", err)
			}
			return
		}
		b1, err := d1.Marshal()
		if err != nil {
			t.Fatalf("Marshal of a parsed doc: %v", err)
		}
		d2, err := Parse(b1)
		if err != nil {
			t.Fatalf("Parse(Marshal(d)): %v\n%s", err, b1)
		}
		if !reflect.DeepEqual(d1, d2) {
			t.Fatalf("round trip changed the doc:\n%#v\n%#v\n%s", d1, d2, b1)
		}
		b2, err := d2.Marshal()
		if err != nil || string(b1) != string(b2) {
			t.Fatalf("Marshal is not stable (%v):\n%s\n%s", err, b1, b2)
		}
	})
}
