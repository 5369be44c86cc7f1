package wire

import (
	"fmt"
	"slices"
	"time"
)

// HelloWait bounds the wait for a connection's first frame at every door (the
// daemon's socket, the page's listener, a link): a peer that says nothing in
// that time is refused and closed.
const HelloWait = 10 * time.Second

// Door is one listener's part of hello admission: the roles it serves, and
// the sentence (with the refused role as its one %q) that tells a peer of
// another role where to go.
type Door struct {
	Roles     []string
	WrongRole string
}

// Admit is the one hello admission rule of every door: the first frame must be
// a hello request whose payload decodes (else bad_frame), whose role the door
// serves and whose protocol is this one (else hello_refused). What a door
// checks beyond that (the socket's OS user, a link's pinned box) it checks
// after.
func (d Door) Admit(env Envelope) (Hello, *Refusal) {
	var h Hello
	if env.Kind != KindReq || env.Op != OpHello {
		return h, Refuse(CodeHelloRefused, "the first frame must be hello, not %s %q; say hello first", env.Kind, env.Op)
	}
	if err := DecodePayload(env.Payload, &h); err != nil {
		return h, Refuse(CodeBadFrame, "%v", err)
	}
	if !slices.Contains(d.Roles, h.Role) {
		return h, Refuse(CodeHelloRefused, d.WrongRole, h.Role)
	}
	if h.Protocol != Protocol {
		return h, Refuse(CodeHelloRefused, "%s", protocolMismatch(h.Protocol))
	}
	return h, nil
}

// protocolMismatch says which protocol each side speaks and which side is
// older. The protocol's rule is that the numbers must match, so a newer peer
// is refused too: this side cannot know what that number changed.
func protocolMismatch(peer int) string {
	older := "update the client"
	if peer > Protocol {
		older = fmt.Sprintf("update this daemon (sotd) to one that speaks it, or use a client that speaks protocol %d", Protocol)
	}
	return fmt.Sprintf("the client speaks sot-comm protocol %d and this daemon speaks only protocol %d; %s", peer, Protocol, older)
}
