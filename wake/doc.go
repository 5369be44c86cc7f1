// Package wake decides whether the daemon may type into a row: the free-prompt
// test (Check) on a screen, and the 2 s wake loop (Loop) that uses it.
//
// The daemon wakes an idle Claude Code or Codex row by typing one fixed line,
// the notice (registry.WakeNotice), and Enter. A line typed into a draft would
// corrupt the user's words, and a line typed into a menu, a dialog or another
// agent's view would answer it, so the test refuses anything it does not
// positively recognise as the agent's empty main prompt. What follows is
// Claude Code's; codex.go has Codex's, read off the real Codex's screens. A
// Claude Code screen is free when all of these hold:
//
//   - The cursor's row is the prompt row: its first non-blank cell is the prompt
//     glyph ❯ (on Windows ❯ or >, Claude Code's fallback when its unicode check
//     fails), with only spaces before it.
//   - The rows directly above and below are the input box's rules: all ─, or
//     ─…─ label ─…─ (one label, a space on each side, as Claude Code draws a
//     named session's box).
//   - The glyph is followed by a no-break space (U+00A0), the main prompt's own
//     mark; menus and dialog inputs draw a plain space. On Windows a bare glyph
//     (a plain space or nothing after it) also counts, for now, as the protocol
//     says: no Windows screen has yet shown the no-break space surviving ConPTY.
//   - The rest of the row is spaces. Dim cells (SGR 2) after the glyph read as
//     spaces, so Claude Code's gray suggestion is not a draft; a typed draft is
//     not dim and is not free wherever the cursor sits.
//   - The cursor sits one or two cells after the glyph.
//   - The agents panel, if Claude Code draws one below the box, shows the input
//     reaching the main agent (see below).
//   - The box is wide enough for the notice on the prompt row: the glyph, its
//     space, the notice, the cursor after it and one spare column (the column at
//     which Claude Code wraps its input has not been measured), so the line the
//     wake types is never wrapped out of the one row the test reads.
//
// A box that holds exactly the notice (the glyph, its space, the notice, then only
// spaces) "holds the notice": an earlier wake typed it and Enter did not follow,
// so the wake sends Enter alone. The cursor column is not asked then (it sits
// after the typed line), but everything else is.
//
// # The agents panel
//
// With background agents, Claude Code lists them under the input box, one per
// line: ● marks the agent the input box reaches, ◯ every other agent, and a
// focused panel draws a cursor (❯) at the start of the selected line. A panel
// line is a row below the box's lower rule whose mark (● or ◯) is its first
// non-blank cell after the cursor, in the third column: "  ● name" or
// "❯ ● name". "Exactly the main agent" is read as: no panel line starts with the
// cursor (no panel focus), exactly one shows ●, and that line is exactly
// "● main" after its two spaces (trailing spaces aside; "● maintainer" or
// "● main · 2 tasks" is not main). Other agents listed with ◯ do not hold the
// wake back: the box still reaches main. The ● elsewhere on a row, as in the
// effort level Claude Code 2.1 draws at the right of its footer
// ("? for shortcuts · ← for agents      ● high · /effort", or "● high · /effort"
// alone while the box holds text), is not a panel line.
//
//	──────────────────────────────────────────
//	❯                                           free: the dot is on main
//	──────────────────────────────────────────
//	  ⏵⏵ auto mode on · 1 shell · ← for agents
//
//	  ● main
//	  ◯ general-purpose  background task  13s
//
//	  ◯ main                                 not free: the panel has focus
//	❯ ● general-purpose  background task  13s   and the box reaches that agent
//
// A status line that draws ● or ◯ in a panel line's place below the box refuses
// the row; that fails closed, and the row's end-of-turn check still reads the
// mail.
package wake
