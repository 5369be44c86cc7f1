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

// requests is a fresh payload of each request op that carries one.
var requests = map[string]func() any{
	OpHello:            func() any { return new(Hello) },
	OpCommFile:         func() any { return new(CommFile) },
	OpCommReceipts:     func() any { return new(CommReceipts) },
	OpWorkspaceSpawn:   func() any { return new(WorkspaceSpawn) },
	OpWorkspaceDestroy: func() any { return new(WorkspaceRef) },
	OpPtyScreen:        func() any { return new(WorkspaceRef) },
	OpPtyInput:         func() any { return new(PtyInput) },
	OpAgentJoin:        func() any { return new(AgentJoin) },
}

func TestEveryRequestPayloadValidates(t *testing.T) {
	for op, fresh := range requests {
		if _, ok := fresh().(Validator); !ok {
			t.Errorf("%s's payload %T has no Validate", op, fresh())
		}
	}
}

func TestRequestFieldsAreBounded(t *testing.T) {
	long := func(n int) string { return `"` + strings.Repeat("x", n) + `"` }
	many := func(n int) string { return `[` + strings.Repeat(`"a",`, n-1) + `"a"]` }
	for _, tc := range []struct {
		name, op, payload string
		bad               string // substring of the refusal, "" when accepted
	}{
		{"sotd's own message id", OpCommFile, `{"from":"a","to":"b","id":"01HZX0000000000000000000AA"}`, ""},
		{"another client's message id", OpCommFile, `{"from":"a","to":"b","id":"ID-guest-to-the-hub's-own-folder"}`, ""},
		{"no message id", OpCommFile, `{"from":"a","to":"b"}`, ""},
		{"a message id with a space", OpCommFile, `{"from":"a","to":"b","id":"ID 1"}`, `the message id "ID 1" has " " at byte 2`},
		{"a message id with a control character", OpCommFile, `{"from":"a","to":"b","id":"ID\u001b]0;x"}`, `has "\x1b" at byte 2`},
		{"a message id with a newline", OpCommFile, `{"from":"a","to":"b","id":"A\nfiled -> @b"}`, `has "\n" at byte 1`},
		{"a message id that is not ASCII", OpCommFile, `{"from":"a","to":"b","id":"ID-\u00e9"}`, `the message id "ID-\u00e9" has "\xc3" at byte 3`},
		{"a message id too long", OpCommFile, `{"from":"a","to":"b","id":` + long(65) + `}`, "the message id is 65 bytes, over the 64 allowed"},
		{"a message id at its bound", OpCommFile, `{"from":"a","to":"b","id":` + long(64) + `}`, ""},
		{"a reply to sotd's own message id", OpCommFile, `{"from":"a","to":"b","in_reply_to":"01HZX0000000000000000000AA"}`, ""},
		{"a reply to an id too long", OpCommFile, `{"from":"a","to":"b","in_reply_to":` + long(65) + `}`, "the in_reply_to id is 65 bytes, over the 64 allowed"},
		{"a reply to an id with a newline", OpCommFile, `{"from":"a","to":"b","in_reply_to":"A\nfiled -> @b"}`, `the in_reply_to id "A\nfiled -> @b" has "\n" at byte 1`},
		{"a repo at its bound", OpCommFile, `{"from":"a","to":"b","repo":` + long(256) + `}`, ""},
		{"a repo too long", OpCommFile, `{"from":"a","to":"b","repo":` + long(257) + `}`, `payload field "repo" is 257 bytes, over the 256 allowed; nothing was done`},
		{"a sender too long", OpCommFile, `{"from":` + long(5000) + `,"to":"b"}`, `payload field "from" is 5000 bytes`},
		{"a receiver too long", OpCommFile, `{"from":"a","to":` + long(300) + `}`, `payload field "to" is 300 bytes`},
		{"a long body is the frame's and mail's to bound", OpCommFile, `{"from":"a","to":"b","text":` + long(600<<10) + `}`, ""},
		{"a hello's host", OpHello, `{"role":"cli","host":` + long(257) + `,"protocol":1}`, `payload field "host" is 257 bytes`},
		{"a hello's role", OpHello, `{"role":` + long(257) + `,"host":"box","protocol":1}`, `payload field "role"`},
		{"a hello's name", OpHello, `{"role":"fe","host":"box","name":` + long(257) + `,"protocol":1}`, `payload field "name"`},
		{"a hello's OS user", OpHello, `{"role":"cli","host":"box","os_user":` + long(257) + `,"protocol":1}`, `payload field "os_user"`},
		{"a receipts sender", OpCommReceipts, `{"from":` + long(257) + `}`, `payload field "from"`},
		{"a receipts receiver", OpCommReceipts, `{"from":"a","to":` + long(257) + `}`, `payload field "to"`},
		{"a row's label", OpWorkspaceSpawn, `{"label":` + long(257) + `,"argv":["sh"]}`, `payload field "label"`},
		{"a row's handle", OpWorkspaceSpawn, `{"handle":` + long(257) + `,"argv":["sh"]}`, `payload field "handle"`},
		{"a row's agent", OpWorkspaceSpawn, `{"agent":` + long(257) + `,"argv":["sh"]}`, `payload field "agent"`},
		{"a row's folder", OpWorkspaceSpawn, `{"cwd":` + long(4097) + `,"argv":["sh"]}`, `payload field "cwd" is 4097 bytes, over the 4096 allowed`},
		{"a row's argument", OpWorkspaceSpawn, `{"argv":["sh",` + long(128<<10+1) + `]}`, `payload field "argv[1]" is 131073 bytes, over the 131072 allowed`},
		{"a row's arguments", OpWorkspaceSpawn, `{"argv":` + many(1025) + `}`, `payload field "argv" has 1025 entries, over the 1024 allowed`},
		{"a row's environment", OpWorkspaceSpawn, `{"argv":["sh"],"env":` + many(1025) + `}`, `payload field "env" has 1025 entries`},
		{"a row's environment entry", OpWorkspaceSpawn, `{"argv":["sh"],"env":[` + long(128<<10+1) + `]}`, `payload field "env[0]"`},
		{"a row at its bounds", OpWorkspaceSpawn, `{"label":` + long(256) + `,"cwd":` + long(4096) + `,"argv":` + many(1024) + `}`, ""},
		{"a row id to destroy", OpWorkspaceDestroy, `{"workspace_id":` + long(257) + `}`, `payload field "workspace_id"`},
		{"a row id to read", OpPtyScreen, `{"workspace_id":` + long(257) + `}`, `payload field "workspace_id"`},
		{"a row id to type into", OpPtyInput, `{"workspace_id":` + long(257) + `,"data_b64":""}`, `payload field "workspace_id"`},
		{"a row id to join", OpAgentJoin, `{"workspace_id":` + long(257) + `,"handle":"h"}`, `payload field "workspace_id"`},
		{"a handle to join", OpAgentJoin, `{"workspace_id":"ws-a","handle":` + long(257) + `}`, `payload field "handle"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := NewReader(strings.NewReader(frame(tc.op, tc.payload))).Read()
			if err != nil {
				t.Fatal(err)
			}
			v := requests[tc.op]()
			err = DecodePayload(e.Payload, v)
			if tc.bad == "" {
				if err != nil {
					t.Fatalf("DecodePayload = %v; want it accepted", err)
				}
				return
			}
			r, ok := RefusalOf(err)
			if !ok || r.Code != CodeBadRequest || !strings.Contains(r.Sentence, tc.bad) {
				t.Fatalf("DecodePayload = %v (%+v); want a bad_request refusal saying %q", err, v, tc.bad)
			}
			if errors.Is(err, ErrFrame) {
				t.Fatalf("a refused field is a bad frame (%v): the connection would close", err)
			}
		})
	}
}
