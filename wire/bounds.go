package wire

import "strconv"

// Bounds on the strings a request's payload carries, in bytes. They are what
// no sane peer exceeds, so a hostile one cannot make a daemon log, store or
// hold more; the rules that say what a field may be (home.CheckHandle's 64
// characters, rows.CheckID, hosts.toml's box names) stay where they are and
// keep their own words within these bounds. A message body (CommFile.Text) and
// PtyInput's bytes are held by the frame alone: mail.MaxText bounds the body
// with its own sentence.
const (
	// MaxName bounds a handle, box, role, agent, label, OS user, row id or
	// repo name.
	MaxName = 256
	// MaxMsgID bounds a message id; sotd's own are 26 characters.
	MaxMsgID = 64
	// MaxPath bounds a folder, as PATH_MAX does.
	MaxPath = 4096
	// MaxArg bounds one argument or KEY=VALUE of a row, as Linux's
	// MAX_ARG_STRLEN does, and MaxArgs how many of either a row is given.
	MaxArg  = 128 << 10
	MaxArgs = 1024
)

// Validator is a request payload that checks its own fields; DecodePayload
// calls it, so every path a request comes by (the socket, a link, WebSocket)
// refuses the same things with the same words.
type Validator interface {
	Validate() error
}

// fields collects the first refusal of a payload's checks.
type fields struct{ err error }

func (f *fields) refuse(format string, a ...any) {
	if f.err == nil {
		f.err = Refuse(CodeBadRequest, format+"; nothing was done", a...)
	}
}

// text refuses a string field longer than max bytes.
func (f *fields) text(name, s string, max int) {
	if len(s) > max {
		f.refuse("payload field %q is %d bytes, over the %d allowed", name, len(s), max)
	}
}

// list refuses more than MaxArgs entries, or one longer than MaxArg.
func (f *fields) list(name string, l []string) {
	if len(l) > MaxArgs {
		f.refuse("payload field %q has %d entries, over the %d allowed", name, len(l), MaxArgs)
	}
	for i, s := range l {
		f.text(name+"["+strconv.Itoa(i)+"]", s, MaxArg)
	}
}

// msgID refuses a message id (field says which: "message id", "in_reply_to
// id") that is not 1 to MaxMsgID printable ASCII characters other than a space;
// "" is no id. sotd makes 26 of Crockford's
// base32 (mail.NewID); the wider set takes another client's, and still puts
// nothing in an inbox line, a log or a terminal that could be read as anything
// but the id.
func (f *fields) msgID(field, id string) {
	if len(id) > MaxMsgID {
		f.refuse("the %s is %d bytes, over the %d allowed", field, len(id), MaxMsgID)
		return
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c > '~' {
			f.refuse("the %s %s has %s at byte %d; an id is 1 to %d printable ASCII characters, no spaces", field, strconv.QuoteToASCII(id), strconv.QuoteToASCII(id[i:i+1]), i, MaxMsgID)
			return
		}
	}
}

// Validate bounds a hello's names.
func (h Hello) Validate() error {
	var f fields
	f.text("role", h.Role, MaxName)
	f.text("host", h.Host, MaxName)
	f.text("name", h.Name, MaxName)
	f.text("os_user", h.OSUser, MaxName)
	return f.err
}

// Validate bounds a comm.file's names and checks its message id and the one
// it answers.
func (r CommFile) Validate() error {
	var f fields
	f.text("from", r.From, MaxName)
	f.text("to", r.To, MaxName)
	f.text("repo", r.Repo, MaxName)
	f.msgID("message id", r.ID)
	f.msgID("in_reply_to id", r.InReplyTo)
	return f.err
}

// Validate bounds a net.list page's handle.
func (r NetListPage) Validate() error {
	var f fields
	f.text("after", r.After, MaxName)
	return f.err
}

// Validate bounds a comm.receipts' handles.
func (r CommReceipts) Validate() error {
	var f fields
	f.text("from", r.From, MaxName)
	f.text("to", r.To, MaxName)
	return f.err
}

// Validate bounds a row's spec.
func (r WorkspaceSpawn) Validate() error {
	var f fields
	f.text("label", r.Label, MaxName)
	f.text("handle", r.Handle, MaxName)
	f.text("agent", r.Agent, MaxName)
	f.text("cwd", r.Cwd, MaxPath)
	f.list("argv", r.Argv)
	f.list("env", r.Env)
	return f.err
}

// Validate bounds the row id.
func (r WorkspaceRef) Validate() error {
	var f fields
	f.text("workspace_id", r.WorkspaceID, MaxName)
	return f.err
}

// Validate bounds the row id.
func (r PtyInput) Validate() error {
	var f fields
	f.text("workspace_id", r.WorkspaceID, MaxName)
	return f.err
}

// Validate bounds the row id and the handle.
func (r AgentJoin) Validate() error {
	var f fields
	f.text("workspace_id", r.WorkspaceID, MaxName)
	f.text("handle", r.Handle, MaxName)
	return f.err
}
