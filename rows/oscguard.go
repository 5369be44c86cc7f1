package rows

// oscGuard makes the text inside OSC strings (a window title, a hyperlink's
// target) plain ASCII before the PTY's emulator reads it. The emulator
// (charmbracelet/x/vt v0.1.0) ends an OSC string at its first non-ASCII byte
// and draws the rest as text: Claude Code sets its title to "✳ Claude Code"
// at each turn's end, and " Claude Code" was drawn into its prompt box, where
// the wake took it for a person's draft and typed no notice into the row
// again. Nothing reads a title from the emulator, so a '?' in place of each
// such byte loses nothing; the bytes an attached terminal gets are not
// changed.
type oscGuard struct{ state oscState }

type oscState uint8

const (
	oscGround oscState = iota
	oscEscape          // after ESC, outside or inside an OSC string
	oscString          // inside an OSC string
)

// clean is p with every non-ASCII byte inside an OSC string replaced by '?':
// p itself when there is none, else a copy. The state carries over from one
// call to the next, since a read may end inside an OSC string.
func (g *oscGuard) clean(p []byte) []byte {
	out := p
	for i, b := range p {
		switch g.state {
		case oscGround:
			if b == 0x1b {
				g.state = oscEscape
			}
		case oscEscape:
			switch b {
			case ']':
				g.state = oscString
			case 0x1b:
			default:
				g.state = oscGround
			}
		case oscString:
			switch {
			case b == 0x07 || b == 0x18 || b == 0x1a: // BEL ends it; CAN, SUB cancel it
				g.state = oscGround
			case b == 0x1b: // ST (ESC \) or a new sequence
				g.state = oscEscape
			case b >= 0x80:
				if &out[0] == &p[0] {
					out = append([]byte(nil), p...)
				}
				out[i] = '?'
			}
		}
	}
	return out
}
