package wire

// OpLinkStatus asks a daemon, on its socket, for the links its role should
// hold and how each is: the answer is a LinkStatus.
const OpLinkStatus = "link.status"

// Roles a LinkStatus names.
const (
	LinkRoleHub        = "hub"        // serves links: the boxes hosts.toml says should link to it
	LinkRoleGuest      = "guest"      // links to its hub
	LinkRoleStandalone = "standalone" // links to none: no hosts.toml, or one that names no hub
)

// LinkStatus answers link.status. Links are the ones the role should hold (a
// hub's: every daemon or frontend box hosts.toml names but itself; a guest's:
// its hub) and any other link that is up, sorted by box.
type LinkStatus struct {
	Role   string      `json:"role"`
	Reason string      `json:"reason,omitempty"` // why the daemon has that role, in its own words
	Links  []LinkState `json:"links"`
	// HubLinks are this daemon's links to the hubs it dials, one per hub in
	// hosts.toml's order: a guest's to every hub (its Links too), a hub's to
	// every other hub. Absent with one hub on a hub, or none.
	HubLinks []LinkState `json:"hub_links,omitempty"`
}

// LinkState is one link as the daemon sees it now. RTTMillis and
// OffsetMillis are absent until a heartbeat has carried timing both ways (a
// peer older than this field never sends it).
type LinkState struct {
	Box       string `json:"box"`
	Up        bool   `json:"up"`
	Transport string `json:"transport,omitempty"` // quic or ws, while up
	// Since is when the link came up, or went down; for one never up, when the
	// daemon started. RFC3339 with fraction, UTC.
	Since string `json:"since"`
	// RTTMillis is the last heartbeat round trip; OffsetMillis is the peer's
	// clock minus this box's, taken from the fastest recent round trip, so it is
	// wrong by at most half of that.
	RTTMillis    *float64 `json:"rtt_ms,omitempty"`
	OffsetMillis *float64 `json:"offset_ms,omitempty"`
	LastError    string   `json:"last_error,omitempty"` // why it is down, or why the last one ended
	// RefusedClaims, on a guest, is what the hub last said it refused of this
	// box's claims on handles over the link up now (OpLinkClaims): mail to
	// those does not reach this box.
	RefusedClaims []RefusedClaim `json:"refused_claims,omitempty"`
}

// LinkBeat is a heartbeat's payload: the NTP exchange carried on the beats
// both ends send anyway. Sent is the sender's clock as it sent this beat; Echo
// is the Sent of the last beat it heard from the peer and Held how long that
// beat waited there before this one went out, so the peer gets a round trip
// and an offset from each beat that echoes one of its own. Times are Unix
// nanoseconds; zero Echo echoes nothing. A heartbeat with no payload (an older
// peer) is still a beat.
type LinkBeat struct {
	Sent int64 `json:"sent"`
	Echo int64 `json:"echo,omitempty"`
	Held int64 `json:"held,omitempty"` // nanoseconds
}
