package wake

import (
	"fmt"
	"strings"

	"github.com/sotcomm/sotd/screen"
)

const (
	panelDot  = "●" // the agent the input box reaches
	panelRing = "◯" // every other agent
	mainLine  = "  ● main"
)

// panelReason says why the agents panel below the input box shows the box not
// reaching the main agent, "" when it does or when there is no panel. Rows from
// first down are read as they show, dim cells included.
func panelReason(s *screen.Screen, first int) string {
	listed, dotted := 0, []string(nil)
	for r := max(first, 0); r < len(s.Lines); r++ {
		line := text(s.Lines[r])
		if !strings.Contains(line, panelDot) && !strings.Contains(line, panelRing) {
			continue
		}
		if !strings.HasPrefix(line, "  ") {
			return fmt.Sprintf("the agents panel below the input box has focus (row %d reads %s): Enter there would open an agent's view, not send a line", r, quote(line))
		}
		listed++
		if strings.Contains(line, panelDot) {
			dotted = append(dotted, line)
		}
	}
	switch {
	case listed == 0 || len(dotted) == 1 && dotted[0] == mainLine:
		return ""
	case len(dotted) == 1:
		return fmt.Sprintf("the agents panel marks %s with ●, not main: the input box reaches that agent, not the main session", quote(dotted[0]))
	case len(dotted) > 1:
		return fmt.Sprintf("the agents panel marks %d agents with ●; only main may be marked", len(dotted))
	default:
		return "the agents panel marks no agent with ●, so the input box may not reach the main session"
	}
}
