package filer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Line is one inbox frame. Its JSON keys are from, to, repo, msg, ts, id and
// in_reply_to, in that order; id (a sender's message id) and in_reply_to (the id
// of the line this one answers) are ours and left out when empty, so a line
// without them is exactly the protocol's frame, and a reader that does not know
// them ignores them as it ignores any member it does not read.
type Line struct {
	From      string `json:"from"`
	To        string `json:"to"`
	Repo      string `json:"repo"`
	Msg       string `json:"msg"`
	TS        string `json:"ts"`
	ID        string `json:"id,omitempty"`
	InReplyTo string `json:"in_reply_to,omitempty"`
	// Fresh says this process minted ID for this append (mail.NewID) and has not
	// offered it before, so no earlier line can hold it and Append skips the
	// dedupe read for it. A retry, and every request a daemon is handed, is not
	// fresh: only its sender knows it has never been sent.
	Fresh bool `json:"-"`
}

// Check is Encode's refusal without the encoding: text that is not valid UTF-8,
// which JSON would silently turn into U+FFFD and so file a message other than
// the one sent. A line it passes always encodes.
func (l Line) Check() error {
	for _, f := range [...]struct{ name, v string }{
		{"from", l.From}, {"to", l.To}, {"repo", l.Repo}, {"msg", l.Msg}, {"ts", l.TS}, {"id", l.ID}, {"in_reply_to", l.InReplyTo},
	} {
		if !utf8.ValidString(f.v) {
			return fmt.Errorf("the %s text is not valid UTF-8; send it as UTF-8 text", f.name)
		}
	}
	return nil
}

// Encode is the line as filed: one JSON object and a newline. It refuses what
// Check refuses.
func (l Line) Encode() ([]byte, error) {
	if err := l.Check(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	// jq -c, the shell client's writer, leaves <, > and & as they are; so do we.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(l); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
