package wake

import "github.com/sotcomm/sotd/rows"

// Kind is what the free-prompt test found.
type Kind int

// The zero Kind is NotFree, so a Verdict nobody filled in never lets the wake
// type.
const (
	NotFree     Kind = iota
	Free             // an empty main prompt: type the notice, then Enter
	HoldsNotice      // the box holds exactly the notice: send Enter alone
)

func (k Kind) String() string {
	switch k {
	case Free:
		return "free"
	case HoldsNotice:
		return "holds the notice"
	default:
		return "not free"
	}
}

// Options says whose screen it is.
type Options struct {
	// Agent is the agent the row runs, which chooses the prompt the test
	// knows: rows.Codex reads Codex's composer (see checkCodex), any other
	// value Claude Code's input box.
	Agent rows.Agent
	// Windows: the row runs on Windows. Claude Code's > is a prompt glyph there
	// too and a bare glyph counts without its no-break space; no Codex screen on
	// Windows has been captured, so a Codex row there is never free.
	Windows bool
	// Notice is the line the wake types; "" means registry.WakeNotice.
	Notice string
}

// Verdict is the free-prompt test's answer.
type Verdict struct {
	Kind Kind
	// Reason says, for NotFree, what the screen shows that holds the wake
	// back, in words a person can act on; it is empty otherwise.
	Reason string
	// BoxTop and BoxBottom are the rows of the input box's two rules, -1 when
	// no input box was found.
	BoxTop, BoxBottom int
}

// String is the verdict as `sotd wake check` prints it: "free", "holds the
// notice" or "not free: <reason>".
func (v Verdict) String() string {
	if v.Kind == Free || v.Kind == HoldsNotice {
		return v.Kind.String()
	}
	return "not free: " + v.Reason
}
