package ancestry

import "strings"

// splitCommandLine splits a Windows command line as the Microsoft C runtime
// (2008 and later) builds argv: the program name runs to the first blank
// outside double quotes, quotes dropped and backslashes kept as they are; in
// every later argument 2n backslashes before a '"' are n backslashes and the
// quote opens or closes a quoted part, 2n+1 are n backslashes and a literal '"',
// backslashes before anything else are literal, and "" inside a quoted part is
// one literal '"'. It is compiled on every OS so its tests and fuzzing run on
// any box.
func splitCommandLine(s string) []string {
	var argv []string
	var b strings.Builder
	i := 0
	quoted := false
	for ; i < len(s); i++ {
		c := s[i]
		if c == '"' {
			quoted = !quoted
			continue
		}
		if !quoted && (c == ' ' || c == '\t') {
			break
		}
		b.WriteByte(c)
	}
	argv = append(argv, b.String())
	quoted = false
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= len(s) {
			return argv
		}
		b.Reset()
		for i < len(s) {
			slashes := 0
			for i < len(s) && s[i] == '\\' {
				slashes++
				i++
			}
			literal := true
			if i < len(s) && s[i] == '"' {
				if slashes%2 == 0 {
					if quoted && i+1 < len(s) && s[i+1] == '"' {
						i++ // "" inside quotes: the second one is copied
					} else {
						literal = false
						quoted = !quoted
					}
				}
				slashes /= 2
			}
			b.WriteString(strings.Repeat(`\`, slashes))
			if i >= len(s) || !quoted && (s[i] == ' ' || s[i] == '\t') {
				break
			}
			if literal {
				b.WriteByte(s[i])
			}
			i++
		}
		argv = append(argv, b.String())
	}
}
