package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"sort"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/mail"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/route"
	"github.com/sotcomm/sotd/wire"
)

// SendArgs is what `sotd send` was asked: To is the first positional @arg without
// its '@'; Text is the message (already read from --file when given); ReplyTo
// names the line it answers (--reply-to), a full message id or a short one as
// poll shows it.
type SendArgs struct {
	To        string
	Text      string
	Broadcast bool
	ReplyTo   string
}

// ReadBody reads a --file body whole: a path, or "-" for stdin. A body over
// the message limit is refused with its whole size, read to the end, so the
// sender learns how much to cut.
func ReadBody(path string, stdin io.Reader) (string, error) {
	r, what := stdin, "stdin"
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return "", fmt.Errorf("read the message body: %w", err)
		}
		defer f.Close()
		r, what = f, path
	}
	b, err := io.ReadAll(io.LimitReader(r, mail.MaxText+1))
	if err == nil && len(b) > mail.MaxText {
		var rest int64
		if rest, err = io.Copy(io.Discard, r); err == nil {
			return "", fmt.Errorf("%s is %d bytes, over the %d-byte (%d KiB) limit; send a shorter body or split it", what, int64(len(b))+rest, mail.MaxText, mail.MaxText>>10)
		}
	}
	if err != nil {
		return "", fmt.Errorf("read the message body: %w", err)
	}
	return string(b), nil
}

// Send files one message (or a broadcast copy to every other live session) and
// prints one line per receiver.
func (s *Session) Send(a SendArgs) int {
	if !s.admitted() {
		return ExitFailed
	}
	label := "@" + a.To
	if a.Broadcast {
		label = "@*"
	}
	if !utf8.ValidString(a.Text) {
		s.out("FAILED -> %s: the message is not valid UTF-8; nothing was sent (send text, or base64 for bytes)", label)
		return ExitFailed
	}
	me, err := s.Me()
	if err != nil {
		s.out("FAILED -> %s: %v; nothing was sent", label, err)
		return ExitFailed
	}
	d, err := s.sendView(me, a)
	if err != nil {
		s.out("FAILED -> %s: the registry could not be read, so identity @%s is unverified; nothing was sent", label, me)
		s.warn("sotd: %v", err)
		return ExitFailed
	}
	self, ok := d.Agents[me]
	if !ok {
		s.out("FAILED -> %s: @%s is not in the registry; reclaim it with sotd join --name %s; nothing was sent", label, me, me)
		return ExitFailed
	}
	if why := s.bindingRefusal(self, me); why != "" {
		s.out("FAILED -> %s: %s; nothing was sent", label, why)
		return ExitFailed
	}
	inReplyTo := ""
	if a.ReplyTo != "" {
		if inReplyTo, err = s.replyTarget(me, a.ReplyTo); err != nil {
			s.out("FAILED -> %s: %s; nothing was sent", label, printable(err.Error(), false))
			return ExitFailed
		}
	}
	repo := self.Repo
	var targets []string
	boxOf := map[string]string{}
	if a.Broadcast {
		// Every box's live sessions: each copy is one comm.file, filed by the
		// box that holds its receiver (route 1 here, else through the hub).
		nl := s.network(d)
		for _, e := range nl.Entries {
			if e.Handle != me && e.Live {
				targets = append(targets, e.Handle)
				boxOf[e.Handle] = e.Box
			}
		}
		for _, l := range unknownLines(nl) {
			s.warn("sotd: the broadcast reaches only the sessions listed; %s", l)
		}
		sort.Strings(targets)
		if len(targets) == 0 {
			s.out("FAILED -> @*: no other live session is listed; nothing was sent")
			return ExitFailed
		}
	} else {
		targets = []string{a.To}
	}
	r := &router{s: s, doc: d}
	reqs := make([]wire.CommFile, len(targets))
	for i, to := range targets {
		reqs[i] = wire.CommFile{From: me, To: to, Text: a.Text, Repo: repo, Broadcast: a.Broadcast, ID: mail.NewID(), InReplyTo: inReplyTo}
	}
	var lines []string
	if a.Broadcast {
		lines = r.fileAll(reqs, func(h string) string { return boxOf[h] }, time.Now().Add(sendWindow()))
	} else {
		lines = []string{r.file(reqs[0])}
	}
	code := ExitOK
	for _, line := range lines {
		if line != "" {
			// A refusal's sentence may be a remote box's words: one line, escaped.
			s.out("%s", printable(line, false))
			if line[0] == 'F' {
				code = ExitFailed
			}
		}
	}
	s.touch(d, me)
	return code
}

// replyTarget is the message id ref names for a reply. A full id as sotd makes
// them is taken as given: it names one line wherever that is filed, one this
// session sent included (sotd log --json shows those). Anything else must be
// the id, or the short id poll shows, of exactly one line of me's inbox, which
// is read to the end to be sure no second line has it.
func (s *Session) replyTarget(me, ref string) (string, error) {
	if mail.IsID(ref) {
		return strings.ToUpper(ref), nil
	}
	ids, err := s.filer().FindIDs(me, func(id string) bool { return mail.NamesID(ref, id) }, 2)
	switch {
	case err != nil:
		return "", fmt.Errorf("reply-to %s could not be looked up: %w", ref, err)
	case len(ids) == 0:
		return "", fmt.Errorf("reply-to %s names no line in @%s's inbox (poll and sotd log show each line's id)", ref, me)
	case len(ids) > 1:
		return "", fmt.Errorf("reply-to %s names more than one line in @%s's inbox (%s and %s); give the full id", ref, me, ids[0], ids[1])
	}
	return ids[0], nil
}

// sendView is the registry as a send needs it: every row for a broadcast,
// whose receivers are every live session, else the sender's and the
// receiver's rows only, which is all a send to one handle reads.
func (s *Session) sendView(me string, a SendArgs) (*registry.Doc, error) {
	if a.Broadcast {
		return registry.Read(s.Home)
	}
	return s.ReadRows(me, a.To)
}

// router picks the route for each request and says the one result line.
type router struct {
	s        *Session
	doc      *registry.Doc
	direct   *bool // route 1 allowed on this box (computed once)
	directNo string
}

func (r *router) file(req wire.CommFile) string {
	ctx, cancel := context.WithTimeout(context.Background(), sendWindow())
	defer cancel()
	return r.fileWithin(ctx, req)
}

// sendWindow is how long a send waits for its answer: the inbox lock wait plus
// 3 s, the one honest answer within 5 s.
func sendWindow() time.Duration {
	return home.EnvSeconds(filer.EnvInboxLockWait, filer.InboxLockWait) + 3*time.Second
}

// fileWithin files req by its route; a copy handed to the daemon is given up at
// ctx's end.
func (r *router) fileWithin(ctx context.Context, req wire.CommFile) string {
	if err := mail.CheckRequest(req); err != nil {
		return fmt.Sprintf("FAILED -> @%s: %v", req.To, err)
	}
	if r.appendsHere(req) {
		return r.appendHere(req)
	}
	return r.handToDaemon(ctx, req)
}

// appendsHere says whether req's route is route 1: this client appends it.
func (r *router) appendsHere(req wire.CommFile) bool {
	_, listed := r.doc.Agents[req.To]
	return route.For(route.Client, listed && r.canAppend(), listed).Here
}

// canAppend is route 1's lock-manager test: this client appends itself only when
// line 1 of inbox-lock-manager names this box's own manager.
func (r *router) canAppend() bool {
	if r.direct == nil {
		ok := false
		if own, err := filer.OwnManager(r.s.Home); err == nil {
			ok, r.directNo = filer.Matches(r.s.Home, own)
		} else {
			r.directNo = err.Error()
		}
		r.direct = &ok
	}
	return *r.direct
}

// appendLines files a copy route 1 appends here; a test swaps it to watch
// how many are in flight at once.
var appendLines = (*filer.Filer).Append

func (r *router) appendHere(req wire.CommFile) string {
	now := r.s.Now()
	if err := mail.CheckReceiver(r.doc, req.To, now); err != nil {
		return fmt.Sprintf("FAILED -> @%s: %v", req.To, err)
	}
	f := r.s.filer()
	l := mail.Compose(req, now)
	// Send minted req.ID just now and files it once, so no line can hold it yet:
	// the filer skips reading the inbox's dedupe window for it.
	l.Fresh = true
	if _, err := appendLines(f, req.To, []filer.Line{l}); err != nil {
		return fmt.Sprintf("FAILED -> @%s: %v", req.To, err)
	}
	return fmt.Sprintf("  filed -> @%s", req.To)
}

// handToDaemon writes one comm.file to this box's daemon and reads one answer
// before ctx ends.
func (r *router) handToDaemon(ctx context.Context, req wire.CommFile) string {
	sock := r.s.Home.Socket(r.s.Host)
	c, err := wire.Dial(ctx, sock, wire.Hello{Role: wire.RoleCLI, Host: r.s.Host, Name: req.From, OSUser: osUser(), Protocol: wire.Protocol})
	if err != nil {
		return fmt.Sprintf("FAILED -> @%s: %s", req.To, daemonFailure(sock, err, r.directNo))
	}
	defer c.Close()
	var res wire.CommFiled
	if err := c.Call(ctx, wire.OpCommFile, req, &res); err != nil {
		return fmt.Sprintf("FAILED -> @%s: %s", req.To, daemonFailure(sock, err, ""))
	}
	return fmt.Sprintf("filed -> @%s", req.To)
}

// daemonFailure is the reason for a wire send that got no "ok": the daemon's own
// sentence when it answered, else what the transport said.
func daemonFailure(sock string, err error, whyNotDirect string) string {
	var re *wire.Refusal
	switch {
	case errors.As(err, &re) && re.Code == wire.CodeHelloRefused:
		return "hello refused: " + re.Sentence
	case errors.As(err, &re):
		return re.Sentence
	case errors.Is(err, syscall.ENOENT), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, os.ErrNotExist):
		msg := "no sotd daemon found; start one with sotd serve (looked at " + sock + ")"
		if whyNotDirect != "" {
			msg += "; this client cannot append itself: " + whyNotDirect
		}
		return msg
	default:
		return fmt.Sprintf("the daemon did not answer at %s (%v)", sock, err)
	}
}

// osUser is the account name the daemon compares with its own; "" lets the
// daemon rely on the socket's peer credentials alone.
func osUser() string {
	u, err := user.Current()
	if err != nil {
		return ""
	}
	return u.Username
}
