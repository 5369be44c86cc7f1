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
			if err != nil || a.To != tc.to || a.Text != tc.text || file != tc.file || a.Broadcast != tc.broadcast {
				t.Fatalf("parseSend(%q) = %+v, file %q, %v", args, a, file, err)
			}
		})
	}
}
