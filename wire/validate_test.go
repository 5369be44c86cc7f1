package wire

import (
	"errors"
	"strings"
	"testing"
)

// frame is one comm.file request frame around payload.
func frame(op, payload string) string {
	return `{"v":1,"id":5,"kind":"req","op":"` + op + `","payload":` + payload + "}\n"
}

func TestFramesHoldingAnEscapedLoneSurrogateAreRefused(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		bad      string // substring of the refusal, "" when the frame is text
	}{
		{"a lone high surrogate in the body", frame(OpCommFile, `{"from":"a","to":"b","text":"\ud800"}`), `lone surrogate (\ud800)`},
		{"a lone low surrogate", frame(OpCommFile, `{"from":"a","to":"b","text":"x\uDC00y"}`), `lone surrogate (\uDC00)`},
		{"a high surrogate before a plain letter", frame(OpCommFile, `{"from":"a","to":"b","text":"\ud83d\u0041"}`), `lone surrogate (\ud83d)`},
		{"a high surrogate then another high one", frame(OpCommFile, `{"from":"a","to":"b","text":"\ud83d\ud83d\ude00"}`), `lone surrogate (\ud83d)`},
		{"a high surrogate at the end of a string", frame(OpCommFile, `{"from":"a","to":"b","text":"ok\udbff"}`), `lone surrogate (\udbff)`},
		{"in a key", frame(OpCommFile, `{"\ud800":1,"from":"a","to":"b"}`), `lone surrogate (\ud800)`},
		{"in the op", `{"v":1,"id":5,"kind":"req","op":"comm.file\udfff"}` + "\n", `lone surrogate (\udfff)`},
		{"in an event", `{"v":1,"id":0,"kind":"evt","op":"link.directory","payload":{"added":["\ud800"]}}` + "\n", `lone surrogate (\ud800)`},
		{"a pair is text", frame(OpCommFile, `{"from":"a","to":"b","text":"\ud83d\ude00"}`), ""},
		{"an escaped backslash before u is text", frame(OpCommFile, `{"from":"a","to":"b","text":"\\ud800"}`), ""},
		{"an escaped backslash pair before a pair", frame(OpCommFile, `{"from":"a","to":"b","text":"\\\\\ud83d\ude00"}`), ""},
		{"other escapes are text", frame(OpCommFile, `{"from":"a","to":"b","text":"\u00e9\n\"\u0000"}`), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := NewReader(strings.NewReader(tc.in)).Read()
			if tc.bad == "" {
				if err != nil {
					t.Fatalf("Read = %v; the frame is text", err)
				}
				return
			}
			if err == nil {
				var c CommFile
				DecodePayload(e.Payload, &c)
				t.Fatalf("Read accepted the frame (op %q, text %q): an escaped lone surrogate was taken as U+FFFD", e.Op, c.Text)
			}
			if !errors.Is(err, ErrFrame) || !strings.Contains(err.Error(), tc.bad) || !strings.Contains(err.Error(), "which is not text") {
				t.Fatalf("Read error = %v; want a bad frame saying %q is not text", err, tc.bad)
			}
		})
	}
}

func TestDecodePayloadRefusesWhatIsNotText(t *testing.T) {
	for raw, want := range map[string]string{
		`{"from":"a","to":"b","text":"\ud800"}`: `the payload holds an escaped lone surrogate (\ud800)`,
		"{\"from\":\"a\",\"text\":\"\xff\"}":    "the payload is not valid UTF-8",
	} {
		var c CommFile
		if err := DecodePayload([]byte(raw), &c); !errors.Is(err, ErrFrame) || !strings.Contains(err.Error(), want) {
			t.Errorf("DecodePayload(%q) = %v (text %q); want %q", raw, err, c.Text, want)
		}
	}
}
