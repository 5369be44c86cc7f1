package wire

// The network view: what `sotd list` shows of every box's sessions, and what
// the status page shows of every box's rows. A guest tells its hub, as
// OpLinkView events on the link's control stream, the entries of the handles
// it holds and its rows; the hub merges them with its own home's and sends the
// merged view back to each guest the same way. No body, and no screen,
// travels in it.
const (
	// OpLinkView is a view event (kind evt): a guest's own entries to its hub,
	// or the hub's merged view to a guest.
	OpLinkView = "link.view"
	// OpNetList asks a daemon, on its socket, for the network view as this box
	// knows it: the answer is a NetList.
	OpNetList = "net.list"
)

// ViewEntry is one handle as `sotd list` shows it. Live is judged on the box
// whose registry holds the entry, by that box's clock (the protocol's rule:
// liveness is judged where the entry lives); LastSeen is carried so a reader
// can say how old it is.
type ViewEntry struct {
	Handle    string   `json:"handle"`
	Box       string   `json:"box"`
	Repo      string   `json:"repo,omitempty"`
	Expertise []string `json:"expertise,omitempty"`
	LastSeen  string   `json:"last_seen,omitempty"`
	Live      bool     `json:"live"`
	State     string   `json:"state,omitempty"`
	Summary   string   `json:"summary,omitempty"`
	StatusAt  string   `json:"status_at,omitempty"`
}

// ViewRow is one row a box runs, as the status page lists it: its metadata
// only. A row's screen is not in the view: no box reads another box's terminal
// (a pinned box acts only for what it holds), so a row's screen is previewed on
// its own box's page.
type ViewRow struct {
	ID       string `json:"id"`
	Box      string `json:"box"`
	Label    string `json:"label,omitempty"`
	Phase    string `json:"phase"`
	Agent    string `json:"agent,omitempty"` // claude, codex or other
	Handle   string `json:"handle,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"` // once Stopped
	Since    string `json:"since,omitempty"`     // RFC 3339, UTC: when the row started
}

// Key names a row in the whole network: its box and id ('/' is in neither a
// box name nor a row id).
func (r ViewRow) Key() string { return r.Box + "/" + r.ID }

// ViewBox is one box of the network and whether its sessions are known now:
// a box whose link is down is listed with why and since when.
type ViewBox struct {
	Box    string `json:"box"`
	Up     bool   `json:"up"`
	Since  string `json:"since,omitempty"` // RFC 3339, UTC: when it came up or went down
	Reason string `json:"reason,omitempty"`
}

// LinkView is one view event. With Full, Entries replace everything the sender
// told before (a large set goes as one Full event and then plain ones, in
// order on the control stream); otherwise Entries are added or replaced and
// Removed are gone. Rows and RowsRemoved (by Key) do the same for the rows.
// Boxes, when present, is the hub's whole list of boxes.
type LinkView struct {
	Full        bool        `json:"full,omitempty"`
	Entries     []ViewEntry `json:"entries,omitempty"`
	Removed     []string    `json:"removed,omitempty"`
	Rows        []ViewRow   `json:"rows,omitempty"`
	RowsRemoved []string    `json:"rows_removed,omitempty"`
	Boxes       []ViewBox   `json:"boxes,omitempty"`
}

// NetList answers net.list. Entries are this box's own (judged now) and, while
// Known, every other box's as the hub last said, in handle order. AsOf is when
// the other boxes' part was last known current: now while Known, else when the
// link to the hub went down ("" when it never came up), and Why says why it is
// not known. A view past NetListBudget goes as pages: Next, when set, is this
// page's last handle, and the entries after it are asked for with
// NetListPage{After: Next}.
type NetList struct {
	Box string `json:"box"`
	Hub string `json:"hub,omitempty"`
	// HubLinks, on a box that dials hubs, is each hub link's state (as
	// link.status's hub_links); the entries are those of the first hub whose
	// view is known, named by Hub.
	HubLinks []LinkState `json:"hub_links,omitempty"`
	Entries  []ViewEntry `json:"entries"`
	Boxes    []ViewBox   `json:"boxes"`
	Known    bool        `json:"known"`
	AsOf     string      `json:"as_of,omitempty"`
	Why      string      `json:"why,omitempty"`
	Next     string      `json:"next,omitempty"`
	// Stale, answering NetListPage{Live: true}, is how many entries of the
	// whole view (not of this page) were left out as stale.
	Stale int `json:"stale,omitempty"`
}

// NetListPage is net.list's request: the entries after handle After, in handle
// order ("" or no payload: from the first). Live asks for the live entries
// alone, the stale ones counted in Stale, so a list's answer follows what is
// live, not what the registry has kept; a daemon older than it sends every
// entry, and the client leaves the stale ones out itself.
type NetListPage struct {
	After string `json:"after,omitempty"`
	Live  bool   `json:"live,omitempty"`
}

// NetListBudget bounds the encoded entries of one net.list answer, so with its
// boxes it stays well within a frame however many handles the boxes publish.
const NetListBudget = 512 << 10
