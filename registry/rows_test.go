package registry

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestReadRowsAnswersAsRead: a lookup of some rows answers what the whole
// read answers for them, and a registry damaged in a row nobody asked for is
// still unreadable, never absent.
func TestReadRowsAnswersAsRead(t *testing.T) {
	tests := []struct {
		name, in   string
		unreadable bool
	}{
		{"both rows", `{"protocol_version":1,"agents":{"a":{"host":"h","x":[1,{"y":null}]},"b":{"done":true},"c":{}}}`, false},
		{"one row absent", `{"agents":{"a":{"host":"h"}}}`, false},
		{"escaped names", `{"agent\u0073":{"\u0061":{"note":"\u00e9\n"},"b\ud800":{}}}`, false},
		{"a row named twice", `{"agents":{"a":{"host":"one"},"a":{"host":"two"}}}`, false},
		{"agents twice", `{"agents":{"a":{"host":"one"}},"agents":{"b":{}}}`, false},
		{"rows not objects", `{"agents":{"a":5,"b":null},"protocol_version":1.5}`, false},
		{"damage in another row", `{"agents":{"a":{"host":"h"},"z":{"host":"h",}}}`, true},
		{"a bad number elsewhere", `{"agents":{"a":{}},"n":01}`, true},
		{"a control byte elsewhere", "{\"agents\":{\"a\":{}},\"n\":\"\x01\"}", true},
		{"a bad escape elsewhere", `{"agents":{"a":{}},"n":"\x"}`, true},
		{"agents not an object at last", `{"agents":{"a":{}},"agents":[]}`, true},
		{"garbage after", `{"agents":{"a":{}}} x`, true},
		{"two documents", `{"agents":{"a":{}}} {}`, true},
		{"truncated", `{"agents":{"a":{}}`, true},
		{"empty", " \n", true},
		{"too deep elsewhere", `{"agents":{"a":{}},"n":` + strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth) + `}`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHome(t)
			writeRegistry(t, h, tc.in)
			full, ferr := Read(h)
			part, perr := ReadRows(h, "a", "b")
			if (ferr != nil) != tc.unreadable || (perr != nil) != tc.unreadable {
				t.Fatalf("Read err %v, ReadRows err %v; want unreadable %v", ferr, perr, tc.unreadable)
			}
			if tc.unreadable {
				if !errors.Is(perr, ErrUnreadable) || perr.Error() != ferr.Error() {
					t.Errorf("ReadRows said %q, Read %q", perr, ferr)
				}
				return
			}
			sameRows(t, full, part, "a", "b")
			if _, ok := pick([]byte(tc.in), nil); !ok {
				t.Error("the fast walk did not take it; the answer came from the whole parse")
			}
		})
	}
}

// TestReadRowsAllocatesForTheWantedRows: one row's read walks the other rows
// without making anything of them, so its garbage does not grow with the
// registry (10,000 rows made one key string each).
func TestReadRowsAllocatesForTheWantedRows(t *testing.T) {
	body := rowsBody(t, 10000)
	allocs := testing.AllocsPerRun(3, func() {
		if d, why := parseRows(body, []string{"s00001"}); why != "" || d.Agents["s00001"] == nil {
			t.Fatalf("s00001 not read: %q", why)
		}
	})
	if allocs > 500 {
		t.Errorf("reading one row of 10,000 made %.0f allocations, want under 500", allocs)
	}
}

// sameRows fails unless part holds exactly full's rows of names, and its
// protocol_version.
func sameRows(t *testing.T, full, part *Doc, names ...string) {
	t.Helper()
	if part.ProtocolVersion != full.ProtocolVersion || part.versionSeen != full.versionSeen {
		t.Errorf("protocol_version %d (seen %v), want %d (seen %v)", part.ProtocolVersion, part.versionSeen, full.ProtocolVersion, full.versionSeen)
	}
	n := 0
	for _, name := range names {
		fe, fok := full.Agents[name]
		pe, pok := part.Agents[name]
		if fok != pok || !reflect.DeepEqual(fe, pe) {
			t.Errorf("row %q: %#v (present %v), want %#v (present %v)", name, pe, pok, fe, fok)
		}
		if pok {
			n++
		}
	}
	if len(part.Agents) != n {
		t.Errorf("ReadRows holds %d rows, want only the %d asked for", len(part.Agents), n)
	}
}

// TestAPartialReadIsNeverWritten: a Doc of some rows cannot be marshalled, so
// no write can drop the rows it does not hold.
func TestAPartialReadIsNeverWritten(t *testing.T) {
	h := newHome(t)
	writeRegistry(t, h, `{"agents":{"a":{},"b":{}}}`)
	d, err := ReadRows(h, "a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Marshal(); err == nil {
		t.Fatal("Marshal of a partial read succeeded")
	}
}

// FuzzReadRows: the fast walk never takes what parse refuses, and parseRows
// answers what parse answers for the rows asked for.
func FuzzReadRows(f *testing.F) {
	for _, s := range []string{
		`{"protocol_version":1,"agents":{"a":{"host":"h"},"b":5}}`,
		`{"agents":{"a":{"n":[1,-0,0.5,1e5,1E-2,-1.5e+3,true,false,null,"\u00e9\"\\\/\b\f\n\r\t"]}}}`,
		`{"agents":{"a":{"n":01}}}`, `{"agents":{"a":{"n":1.}}}`, `{"agents":{"a":{"n":-}}}`,
		`{"agents":{"a":{"n":1e}}}`, `{"agents":{"a":{"n":.5}}}`, `{"agents":{"a":{"n":+1}}}`,
		`{"agents":{"a":{"n":"\u12"}}}`, `{"agents":{"a":{"n":tru}}}`, `{"agents":{"a":{"n":nul}}}`,
		`{"agents":{"a":{"n":[1,]}}}`, `{"agents":{"a":{"n":{"k"}}}}`, `{"agents":{"a":{,}}}`,
		"{\"agents\":{\"\xff\":{\"note\":\"\xfe\"}}}", "{\"agents\":{\"a\":{\"n\":\"\t\"}}}",
		`{"agents":{}, "agents":{"a":{}}}`, `{"agents":{"a":{}}, "agents":null}`,
		`{"agents":{"a":{}}} {}`, ` {"agents":{"a":{}}} `, `{"agents":{"a":{}}}]`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		d, why := parse(in)
		if _, ok := pick(in, nil); ok && why != "" {
			t.Fatalf("the walk took what parse refuses (%s): %q", why, in)
		}
		part, pwhy := parseRows(in, []string{"a", "b", "\ufffd"})
		if pwhy != why {
			t.Fatalf("parseRows says %q, parse %q", pwhy, why)
		}
		if why == "" {
			sameRows(t, d, part, "a", "b", "\ufffd")
		}
	})
}
