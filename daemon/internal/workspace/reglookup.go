package workspace

import "github.com/sotcomm/sotd/registry"

// lookup is registry.Lookup from the daemon's cached parse, for the wake's
// reads of one row, with Lookup's three answers: a large registry is not
// read and walked again for each row the wake looks at.
func (r regSource) lookup(handle string) (*registry.Entry, bool, error) {
	doc, err := r.read()
	if err != nil {
		return nil, false, err
	}
	e, ok := doc.Agents[handle]
	return e, ok, nil
}
