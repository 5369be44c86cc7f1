package wire

import (
	"encoding/json"
	"strconv"
)

// OpRegistryRows asks this box's daemon for some rows of the registry, from
// its cached parse (re-read only when the file changed), so a command that
// needs a row or two (send, poll, status, the hooks) does not read and check
// the whole registry itself.
const OpRegistryRows = "registry.rows"

// MaxRegistryRows bounds the names one registry.rows asks for: a send needs
// two, a hook one.
const MaxRegistryRows = 16

// RegistryRows names the rows wanted.
type RegistryRows struct {
	Names []string `json:"names"`
}

// Validate holds the names to MaxRegistryRows of MaxName bytes.
func (r RegistryRows) Validate() error {
	var f fields
	if len(r.Names) > MaxRegistryRows {
		f.refuse("payload field %q has %d entries, over the %d allowed", "names", len(r.Names), MaxRegistryRows)
	}
	for i, n := range r.Names {
		f.text("names["+strconv.Itoa(i)+"]", n, MaxName)
	}
	return f.err
}

// RegistryRowsOK answers registry.rows: each named row that is present, as
// the registry writes it, and the registry's protocol_version. A name absent
// from Rows is absent from the registry; an unreadable registry is refused
// (registry_unreadable), never answered with no rows.
type RegistryRowsOK struct {
	ProtocolVersion int                        `json:"protocol_version"`
	Rows            map[string]json.RawMessage `json:"rows"`
}
