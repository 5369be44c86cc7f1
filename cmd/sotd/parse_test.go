package main

import (
	"strings"
	"testing"
)

func TestParseSend(t *testing.T) {
	for _, tc := range []struct {
		name      string
		args      string // split on '|'
		to, text  string
		file      string
		broadcast bool
		replyTo   string
		bad       string
	}{
		{name: "plain", args: "@bob|hello there", to: "bob", text: "hello there"},
		{name: "words join", args: "@bob|hello|there", to: "bob", text: "hello there"},
		{name: "message begins with @", args: "@bob|@carol said hi", to: "bob", text: "@carol said hi"},
		{name: "second @arg is message", args: "@bob|@carol", to: "bob", text: "@carol"},
		{name: "flag-like message words", args: "@bob|hi|--file|x", to: "bob", text: "hi --file x"},
		{name: "file", args: "@bob|--file|notes.md", to: "bob", file: "notes.md"},
		{name: "file=", args: "@bob|--file=-", to: "bob", file: "-"},
		{name: "file first", args: "--file|-|@bob", to: "bob", file: "-"},
		{name: "double dash", args: "@bob|--|--broadcast", to: "bob", text: "--broadcast"},
		{name: "broadcast", args: "--broadcast|rebasing", broadcast: true, text: "rebasing"},
		{name: "broadcast @word", args: "--broadcast|@all hands", broadcast: true, text: "@all hands"},
		{name: "no recipient", args: "hello", bad: "the first argument must be the recipient"},
		{name: "nothing", args: "", bad: "no recipient"},
		{name: "no message", args: "@bob", bad: "no message"},
		{name: "file and words", args: "@bob|--file|x|extra", bad: "not both"},
		{name: "file without path", args: "@bob|--file", bad: "--file needs a PATH"},
		{name: "reply", args: "@bob|--reply-to|S9T0VWXY|done", to: "bob", text: "done", replyTo: "S9T0VWXY"},
		{name: "reply=", args: "@bob|--reply-to=S9T0VWXY|done", to: "bob", text: "done", replyTo: "S9T0VWXY"},
		{name: "reply first", args: "--reply-to|S9T0VWXY|@bob|done", to: "bob", text: "done", replyTo: "S9T0VWXY"},
		{name: "reply with a file", args: "@bob|--file|-|--reply-to|S9T0VWXY", to: "bob", file: "-", replyTo: "S9T0VWXY"},
		{name: "reply broadcast", args: "--broadcast|--reply-to|S9T0VWXY|all", broadcast: true, text: "all", replyTo: "S9T0VWXY"},
		{name: "reply-to in the message is text", args: "@bob|hi|--reply-to|X", to: "bob", text: "hi --reply-to X"},
		{name: "a second reply-to is the message", args: "@bob|--reply-to|A|--reply-to|B", to: "bob", text: "--reply-to B", replyTo: "A"},
		{name: "reply without id", args: "@bob|--reply-to", bad: "--reply-to needs the id"},
		{name: "reply= without id", args: "@bob|--reply-to=|hi", bad: "--reply-to needs the id"},
		{name: "reply without message", args: "@bob|--reply-to|X", bad: "no message"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var args []string
			if tc.args != "" {
				args = strings.Split(tc.args, "|")
			}
			a, file, err := parseSend(args)
			if tc.bad != "" {
				if err == nil || !strings.Contains(err.Error(), tc.bad) {
					t.Fatalf("parseSend(%q) = %+v, %v; want error %q", args, a, err, tc.bad)
				}
				return
			}
			if err != nil || a.To != tc.to || a.Text != tc.text || file != tc.file || a.Broadcast != tc.broadcast || a.ReplyTo != tc.replyTo {
				t.Fatalf("parseSend(%q) = %+v, file %q, %v", args, a, file, err)
			}
		})
	}
}
