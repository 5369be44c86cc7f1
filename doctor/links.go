package doctor

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sotcomm/sotd/wire"
)

// Clock skew bounds against a linked box, measured on the link's heartbeats
// (to within half a round trip: milliseconds). The tightest age the protocol
// judges across boxes is a stop_at mark "under a minute" old; liveness (600 s)
// and the wake's ten-minute repeat are looser. A skew of skewFail eats half
// that minute, so rows are typed into, or left deaf, at the wrong time: a
// problem. Clocks kept by NTP agree to milliseconds, so skewWarn is already
// one that is not kept, well before it misjudges anything.
const (
	skewWarn = 5 * time.Second
	skewFail = 30 * time.Second
)

// syncFix is how to keep a clock synced, on each OS.
const syncFix = "turn on NTP (timedatectl set-ntp true, or start chrony or systemd-timesyncd; macOS and Windows: set the time automatically)"

// errNoDaemon wraps a link.status that could not be asked: no daemon answered.
var errNoDaemon = errors.New("no daemon answered")

// notAsked is the check for links when the daemon could not tell them; ok
// is false when it could.
func notAsked(c Check, f hostsFile, err error) (Check, bool) {
	var re *wire.Refusal
	switch {
	case f.none():
		c.Level, c.Detail = OK, "no hosts.toml, so this box is a standalone hub and holds no links"
	case errors.Is(err, errNoDaemon):
		c.Level, c.Detail = OK, "not known: no daemon runs on this box to hold them (the daemon check says how to start it)"
	case errors.As(err, &re) && re.Code == wire.CodeUnknownOp:
		c.Level, c.Detail = Warn, "the daemon running here is older than this sotd and cannot say"
		c.Fix = "Restart the daemon so it runs this sotd (sotd serve, or restart its service)."
	case err != nil:
		c.Level, c.Detail = Warn, fmt.Sprintf("the daemon did not say: %v", err)
		c.Fix = "Run sotd doctor again; if it says this again, restart the daemon."
	default:
		return c, false
	}
	return c, true
}

// checkLinks: every link this daemon's role should hold is up. A box down is a
// problem: mail to and from it does not flow.
func checkLinks(e Env, f hostsFile, st wire.LinkStatus, err error) Check {
	c, done := notAsked(Check{Name: "links"}, f, err)
	if done {
		return c
	}
	if st.Role == wire.LinkRoleStandalone {
		c.Level, c.Detail = OK, "this daemon links to none: "+st.Reason
		if f.err == nil && f.t.Hub != "" {
			c.Level = Fail
			c.Fix = fmt.Sprintf("Restart the daemon so it reads %s, which names %s as hub.", f.path, f.t.Hub)
		}
		return c
	}
	up, down, downBoxes := linkTexts(st.Links)
	if st.Role == wire.LinkRoleGuest && len(st.HubLinks) > 1 {
		return checkHubLinks(e, f, c, st.HubLinks)
	}
	if len(down) == 0 {
		c.Level, c.Detail = OK, fmt.Sprintf("this %s holds every link it should: %s", st.Role, strings.Join(up, "; "))
		if len(up) == 0 {
			c.Detail = fmt.Sprintf("this %s should hold no link: no box in %s other than the hub has daemon or frontend = true", st.Role, f.path)
		}
		if st.Role == wire.LinkRoleHub && len(st.HubLinks) > 0 {
			if hc := checkHubLinks(e, f, c, st.HubLinks); hc.Level != OK {
				return hc
			}
			hubsUp, _, _ := linkTexts(st.HubLinks)
			c.Detail += "; to the other hubs: " + strings.Join(hubsUp, "; ")
		}
		return c
	}
	c.Level, c.Detail = Fail, strings.Join(append(down, up...), "; ")
	if st.Role == wire.LinkRoleGuest {
		c.Fix = guestFix(e, f, downBoxes[0])
	} else {
		c.Fix = hubFix(e, f, downBoxes)
	}
	return c
}

// linkTexts says how each link is, up and down apart, and names the boxes
// whose link is down.
func linkTexts(links []wire.LinkState) (up, down, downBoxes []string) {
	for _, l := range links {
		if l.Up {
			up = append(up, fmt.Sprintf("%s up over %s%s", l.Box, l.Transport, rttText(l)))
			continue
		}
		d := fmt.Sprintf("%s down since %s", l.Box, sinceText(l.Since))
		if l.LastError != "" {
			d += " (" + l.LastError + ")"
		}
		down = append(down, d)
		downBoxes = append(downBoxes, l.Box)
	}
	return up, down, downBoxes
}

// checkHubLinks judges a box's links to several hubs: mail flows while one is
// up, so a hub down while another is up is a warning, and every hub down a
// problem.
func checkHubLinks(e Env, f hostsFile, c Check, hubs []wire.LinkState) Check {
	up, down, downBoxes := linkTexts(hubs)
	switch {
	case len(down) == 0:
		c.Level, c.Detail = OK, "this box holds a link to each of its hubs: "+strings.Join(up, "; ")
	case len(up) > 0:
		c.Level, c.Detail = Warn, fmt.Sprintf("mail goes through the hubs up, but %s", strings.Join(append(down, up...), "; "))
		c.Fix = guestFix(e, f, downBoxes[0])
	default:
		c.Level, c.Detail = Fail, "no hub is linked, so no mail leaves or reaches this box's sessions from other boxes: "+strings.Join(down, "; ")
		c.Fix = guestFix(e, f, downBoxes[0])
	}
	return c
}

// guestFix says how to bring up this guest's link to hub.
func guestFix(e Env, f hostsFile, hub string) string {
	fix := fmt.Sprintf("Check that the hub's daemon runs (sotd doctor on %s)", hub)
	hh, ok := f.t.Host(hub)
	if f.err != nil || !ok {
		return fix + fmt.Sprintf(" and that hosts.toml here lists [host.%s] with its addr and key.", hub)
	}
	fix += fmt.Sprintf(" and that this box reaches [host.%s] addr = %q in %s over UDP", hub, hh.Addr, f.path)
	if hh.WSAddr == "" {
		fix += fmt.Sprintf("; where a firewall blocks UDP, give [host.%s] a ws_addr (TCP) to fall back to, on every box", hub)
	} else {
		fix += fmt.Sprintf(", or its ws_addr = %q over TCP", hh.WSAddr)
	}
	return fix + fmt.Sprintf("; the key pinned there must be the last field of sotd id on %s, and %s's hosts.toml must pin this box's (sotd id here) under [host.%s].", hub, hub, e.Host)
}

// hubFix says how to bring up the links of the guests down.
func hubFix(e Env, f hostsFile, down []string) string {
	boxes := strings.Join(down, ", ")
	return fmt.Sprintf("Start sotd serve on %s and run sotd doctor there; its hosts.toml must name %s as hub at the addr (or ws_addr, where UDP is blocked) this box listens on, and %s here must pin its key (the last field of its sotd id) under [host.<box>]. A box that should not link: set daemon = false and frontend = false under its table.", boxes, e.Host, f.path)
}

// sinceText is a link.status time to the second, as a person reads it.
func sinceText(since string) string {
	t, err := time.Parse(time.RFC3339Nano, since)
	if err != nil {
		return since
	}
	return t.UTC().Format(time.RFC3339)
}

// rttText is a link's round trip for a person, or why there is none.
func rttText(l wire.LinkState) string {
	if l.RTTMillis == nil {
		return ", not timed yet (a peer older than this sotd never is)"
	}
	return fmt.Sprintf(", round trip %.3g ms", *l.RTTMillis)
}

// checkSkew: the clocks of linked boxes agree with this one, as measured over
// each link: the guest's against its hub, the hub's against each guest.
func checkSkew(f hostsFile, st wire.LinkStatus, err error) Check {
	c, done := notAsked(Check{Name: "clock skew"}, f, err)
	if done {
		c.Level, c.Fix = OK, ""
		c.Detail = "not measured: " + c.Detail
		return c
	}
	var worst time.Duration
	var measured, untimed, off []string
	for _, l := range st.Links {
		switch {
		case !l.Up:
			continue // the links check names it
		case l.OffsetMillis == nil:
			untimed = append(untimed, l.Box)
			continue
		}
		skew := time.Duration(*l.OffsetMillis * float64(time.Millisecond))
		s := fmt.Sprintf("%s %s", l.Box, skewText(skew))
		measured = append(measured, s)
		if skew.Abs() > skewWarn {
			off = append(off, s)
		}
		worst = max(worst, skew.Abs())
	}
	switch {
	case worst > skewWarn:
		c.Level = Warn
		if worst > skewFail {
			c.Level = Fail
		}
		c.Detail = fmt.Sprintf("clocks disagree by more than %s: %s", skewWarn, strings.Join(off, "; "))
		c.Fix = "Sync the clock of each box named, or this one's if every box reads off from here: " + syncFix + "; liveness, work-state ages and the wake misjudge ages until then."
	case len(untimed) > 0:
		c.Level = Warn
		c.Detail = fmt.Sprintf("%s send no timing, so their clocks are not measured", strings.Join(untimed, ", "))
		c.Fix = fmt.Sprintf("Update sotd on %s.", strings.Join(untimed, ", "))
	case len(measured) == 0:
		c.Level, c.Detail = OK, "not measured: no link is up"
	default:
		c.Level, c.Detail = OK, fmt.Sprintf("within %s of this box: %s", skewWarn, strings.Join(measured, "; "))
	}
	return c
}

// skewText says how far a box's clock is from this one's.
func skewText(d time.Duration) string {
	switch d = d.Round(time.Millisecond); {
	case d > 0:
		return d.String() + " ahead"
	case d < 0:
		return (-d).String() + " behind"
	}
	return "in step"
}

// checkClaims: the hub took every handle this box claimed over its link. A
// handle it refused (another box holds it, or keeps it since its link ended
// a moment ago, or it is derived for another box) gets no mail here.
func checkClaims(f hostsFile, st wire.LinkStatus, err error) Check {
	c, done := notAsked(Check{Name: "claims"}, f, err)
	if done {
		c.Level, c.Fix = OK, ""
		return c
	}
	var refused []string
	for _, l := range st.Links {
		for _, r := range l.RefusedClaims {
			s := fmt.Sprintf("@%s (%s", r.Handle, r.Why)
			if r.Holder != "" {
				s += "; held by " + r.Holder
			}
			refused = append(refused, s+")")
		}
	}
	if len(refused) == 0 {
		c.Level, c.Detail = OK, "the hub took every handle this box claimed"
		return c
	}
	c.Level = Warn
	c.Detail = fmt.Sprintf("the hub refused %d of this box's handles, so mail to them does not reach this box: %s", len(refused), strings.Join(refused, "; "))
	c.Fix = "Join those sessions under another name (sotd join --name <handle>). A box that holds a handle derived for this one (<folder>-" + "<this box>) claimed it first: check that box on the hub (its log names it), and remove its pin from the hub's hosts.toml if its key may be compromised."
	return c
}
