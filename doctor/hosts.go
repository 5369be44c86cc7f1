package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/sotcomm/sotd/identity"
	"github.com/sotcomm/sotd/registry"
	"github.com/sotcomm/sotd/topology"
)

// hostsFile is hosts.toml as Load read it, read once for every check.
type hostsFile struct {
	path  string // "" when this OS names no place for one
	t     *topology.Topology
	warns []topology.Warning
	err   error // nil, fs.ErrNotExist for none, or what is wrong with it
}

func loadHosts(path string) hostsFile {
	f := hostsFile{path: path, err: fs.ErrNotExist}
	if path != "" {
		f.t, f.warns, f.err = topology.Load(path)
	}
	return f
}

func (f hostsFile) none() bool { return errors.Is(f.err, fs.ErrNotExist) }

// checkHosts: hosts.toml is absent (a standalone hub) or valid. A standalone
// hub whose folder or mail shows other boxes (otherBoxes) is warned: they
// cannot reach it, nor it them, until hosts.toml names the hub.
func checkHosts(e Env, f hostsFile, doc *registry.Doc) Check {
	c := Check{Name: "hosts.toml"}
	switch {
	case f.none():
		c.Level, c.Detail = OK, "there is none, so this box is a standalone hub"
		if f.path != "" {
			c.Detail = fmt.Sprintf("there is none at %s, so this box is a standalone hub", f.path)
		}
		if others := otherBoxes(e, doc); len(others) > 0 {
			c.Level = Warn
			c.Detail += " and links to no other box, but other boxes are in its mail: " + strings.Join(others, "; ")
			c.Fix = "If those boxes should reach this one, write hosts.toml"
			if f.path != "" {
				c.Fix += " at " + f.path
			}
			c.Fix += " naming the hub and every box's key (hosts.toml.example shows every key; sotd id prints this box's), on every box, and restart the daemons."
		}
	case f.err != nil:
		c.Level, c.Detail = Fail, f.err.Error()
		c.Fix = fmt.Sprintf("Correct %s at the line named (hosts.toml.example shows every key); until then no box is its hub.", f.path)
	case len(f.warns) > 0:
		ws := make([]string, len(f.warns))
		for i, w := range f.warns {
			ws[i] = w.String()
		}
		c.Level, c.Detail = Warn, strings.Join(ws, "; ")
		c.Fix = fmt.Sprintf("Correct %s at the lines named; the keys warned about are ignored.", f.path)
	default:
		c.Level, c.Detail = OK, fmt.Sprintf("%s is valid: %d boxes, %s", f.path, len(f.t.Hosts), hubsText(f.t.HubNames()))
	}
	return c
}

// checkPins: the hub and this box have keys pinned, and this box's key is the
// one pinned for it. Load already refuses a hub with no key.
func checkPins(e Env, f hostsFile) Check {
	c := Check{Name: "pins"}
	if f.err != nil {
		c.Level, c.Detail = OK, "no topology, so there are no pins to check"
		if !f.none() {
			c.Level, c.Detail = Warn, "hosts.toml does not load, so its pins are not checked"
		}
		return c
	}
	me, listed := f.t.Host(e.Host)
	id, err := identity.Read(e.Home, e.Host)
	switch {
	case !listed:
		c.Level, c.Detail = Fail, fmt.Sprintf("this box, %s, is not in hosts.toml, so the hub refuses its link", e.Host)
		c.Fix = fmt.Sprintf("Add [host.%s] with daemon = true and key = the last field of sotd id on this box, to hosts.toml on every box (or set $SOT_SELF_HOST to this box's name there).", e.Host)
	case me.Key == "":
		c.Level, c.Detail = Warn, fmt.Sprintf("[host.%s] pins no key: it runs no daemon or frontend, so it holds no link", e.Host)
	case errors.Is(err, fs.ErrNotExist):
		c.Level, c.Detail = Fail, fmt.Sprintf("this box has no key yet, and hosts.toml pins %s for it", me.Key)
		c.Fix = "Run sotd id here and set key to what it prints under [host." + e.Host + "] in every box's hosts.toml."
	case err != nil:
		c.Level, c.Detail = Fail, err.Error()
		c.Fix = "Move the key aside, run sotd id to make a new one, and pin it in every box's hosts.toml."
	case id.Fingerprint() != me.Key:
		c.Level, c.Detail = Fail, fmt.Sprintf("this box's key is %s but hosts.toml pins %s for %s, so the hub refuses its link", id.Fingerprint(), me.Key, e.Host)
		c.Fix = fmt.Sprintf("Set key = %q under [host.%s] in every box's hosts.toml (or restore the key the pin names to %s).", id.Fingerprint(), e.Host, id.Path)
	default:
		c.Level, c.Detail = OK, fmt.Sprintf("this box's key matches its pin, and the %s has one", hubsText(f.t.HubNames()))
	}
	return c
}

// hubsText names the hubs: "hub forge", or "hubs forge, kiln" (each).
func hubsText(hubs []string) string {
	if len(hubs) == 1 {
		return "hub " + hubs[0]
	}
	return "hubs " + strings.Join(hubs, ", ") + " (each)"
}
