package wire

// Control events on a link's control stream (kind evt). Both ends send
// OpLinkHeartbeat; a guest tells the hub which handles it holds with
// OpLinkDirectory: the full set once the link is up, then what changed (and,
// on a link whose hello agreed to Ticks, an empty event on every poll).
const (
	OpLinkHeartbeat = "link.heartbeat"
	OpLinkDirectory = "link.directory"
	// OpLinkCancel (kind evt, the id of the caller's request) goes on a link's
	// request stream when both ends agreed to one (Hello.Mux): the caller gave
	// up on that request, and the handler answering it is stopped.
	OpLinkCancel = "link.cancel"
)

// OpLinkClaims (kind evt, on the control stream, hub to guest) tells a guest
// the claims of its last directory event that the hub refused, so the box can
// say so (its log, link.status, sotd doctor): mail to those handles does not
// reach it. A guest older than it drops the event.
const OpLinkClaims = "link.claims"

// LinkClaims is an OpLinkClaims payload.
type LinkClaims struct {
	Refused []RefusedClaim `json:"refused"`
}

// RefusedClaim is one handle a box claimed and the hub refused: the box that
// holds it, or keeps it, where one does, and why.
type RefusedClaim struct {
	Handle string `json:"handle"`
	Holder string `json:"holder,omitempty"`
	Why    string `json:"why"`
}

// LinkDirectory is a guest's handles. With Full, Added is the whole set and
// replaces whatever the hub held for that guest; otherwise Added and Removed are
// changes, applied in the order the events came.
type LinkDirectory struct {
	Full    bool     `json:"full,omitempty"`
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
}

// Answer reads a response frame into resp (which may be nil), or returns the
// *Refusal its payload carries when it is a refusal.
func Answer(env Envelope, resp any) error { return answer(env, resp) }
