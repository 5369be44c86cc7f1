package hooks

import (
	"path"
	"strings"
)

// maxNesting bounds how deep command substitutions and `sh -c` strings are
// followed, so a hostile command cannot make the guard recurse without end.
const maxNesting = 8

// simpleCommands splits a shell command line into its simple commands, each as
// its words after quote removal, the way bash would run them: separated by ; & |
// && || newlines and parentheses, with comments dropped and redirections' targets
// left out. The bodies of command substitutions, $(…) and `…` (in double quotes
// too, where bash still runs them), are split the same way and added as commands
// of their own. Single-quoted text and the rest of a double-quoted string are
// one literal word: a command that only mentions a verb in a string names no
// command. A substitution's output in a word is unknown when the guard runs, so
// it counts as nothing.
func simpleCommands(src string, depth int) [][]string {
	p := &splitter{src: src, depth: depth}
	p.run()
	p.endCommand()
	return p.out
}

type splitter struct {
	src      string
	depth    int
	i        int
	out      [][]string
	words    []string
	word     strings.Builder
	inWord   bool
	redirect bool // the word being read is a redirection's target
	heredoc  bool // … and that redirection is <<, so the word is a delimiter
	strip    bool // … of <<-, whose body lines may be indented by tabs
	docs     []heredoc
}

// heredoc is a here-document whose body starts at the next newline: data, not
// commands.
type heredoc struct {
	delim string
	strip bool
}

func (p *splitter) run() {
	for p.i < len(p.src) {
		c := p.src[p.i]
		p.i++
		switch {
		case c == ' ' || c == '\t':
			p.endWord()
		case c == '\n':
			p.endCommand()
			p.skipHeredocs()
		case c == ';' || c == '&' || c == '|' || c == '(' || c == ')':
			p.endCommand()
		case c == '<' || c == '>':
			p.redirection()
		case c == '#' && !p.inWord:
			for p.i < len(p.src) && p.src[p.i] != '\n' {
				p.i++
			}
		case c == '\\':
			p.escaped()
		case c == '\'':
			p.inWord = true
			end := strings.IndexByte(p.src[p.i:], '\'')
			if end < 0 {
				end = len(p.src) - p.i
			}
			p.word.WriteString(p.src[p.i : p.i+end])
			p.i = min(p.i+end+1, len(p.src))
		case c == '"':
			p.inWord = true
			p.doubleQuoted()
		case c == '`':
			p.inWord = true
			p.nested(p.backquoted())
		case c == '$' && p.i < len(p.src) && p.src[p.i] == '(':
			p.inWord = true
			p.i++
			p.nested(p.parenthesized())
		default:
			p.inWord = true
			p.word.WriteByte(c)
		}
	}
}

// escaped takes the byte after an unquoted backslash literally; a backslash and
// newline is a line continuation, which bash removes.
func (p *splitter) escaped() {
	if p.i >= len(p.src) {
		return
	}
	if p.src[p.i] != '\n' {
		p.inWord = true
		p.word.WriteByte(p.src[p.i])
	}
	p.i++
}

// redirection drops an fd number written before the operator (2>…) and marks the
// next word as the target, which is not a command's word.
func (p *splitter) redirection() {
	if w := p.word.String(); p.inWord && w != "" && strings.Trim(w, "0123456789") == "" {
		p.word.Reset()
		p.inWord = false
	}
	p.endWord()
	op := p.i - 1
	for p.i < len(p.src) && strings.IndexByte("<>&|", p.src[p.i]) >= 0 {
		p.i++
	}
	p.redirect = true
	if p.src[op:p.i] == "<<" {
		p.heredoc = true
		if p.i < len(p.src) && p.src[p.i] == '-' {
			p.strip = true
			p.i++
		}
	}
}

// skipHeredocs passes over the bodies of the here-documents the line just ended
// opened, each up to its delimiter line.
func (p *splitter) skipHeredocs() {
	for _, d := range p.docs {
		for p.i < len(p.src) {
			end := strings.IndexByte(p.src[p.i:], '\n')
			if end < 0 {
				end = len(p.src) - p.i
			}
			line := p.src[p.i : p.i+end]
			p.i = min(p.i+end+1, len(p.src))
			if d.strip {
				line = strings.TrimLeft(line, "\t")
			}
			if line == d.delim {
				break
			}
		}
	}
	p.docs = nil
}

// doubleQuoted reads to the closing quote. A backslash escapes only $ ` " \ and
// newline there, and substitutions still run.
func (p *splitter) doubleQuoted() {
	for p.i < len(p.src) {
		c := p.src[p.i]
		p.i++
		switch {
		case c == '"':
			return
		case c == '\\' && p.i < len(p.src) && strings.IndexByte("$`\"\\\n", p.src[p.i]) >= 0:
			if p.src[p.i] != '\n' {
				p.word.WriteByte(p.src[p.i])
			}
			p.i++
		case c == '`':
			p.nested(p.backquoted())
		case c == '$' && p.i < len(p.src) && p.src[p.i] == '(':
			p.i++
			p.nested(p.parenthesized())
		default:
			p.word.WriteByte(c)
		}
	}
}

// backquoted returns the body of `…`, whose \` is a literal backquote.
func (p *splitter) backquoted() string {
	var b strings.Builder
	for p.i < len(p.src) {
		c := p.src[p.i]
		p.i++
		switch {
		case c == '`':
			return b.String()
		case c == '\\' && p.i < len(p.src) && strings.IndexByte("`\\$", p.src[p.i]) >= 0:
			b.WriteByte(p.src[p.i])
			p.i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// parenthesized returns the body of $(…) up to its matching parenthesis, skipping
// quoted text, which may hold parentheses of its own.
func (p *splitter) parenthesized() string {
	start, depth := p.i, 1
	for p.i < len(p.src) {
		c := p.src[p.i]
		p.i++
		switch c {
		case '\\':
			p.i = min(p.i+1, len(p.src))
		case '\'':
			if end := strings.IndexByte(p.src[p.i:], '\''); end >= 0 {
				p.i += end + 1
			} else {
				p.i = len(p.src)
			}
		case '"':
			for p.i < len(p.src) && p.src[p.i] != '"' {
				if p.src[p.i] == '\\' {
					p.i++
				}
				p.i++
			}
			p.i = min(p.i+1, len(p.src))
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return p.src[start : p.i-1]
			}
		}
	}
	return p.src[start:]
}

// nested adds a substitution's commands. Its output, part of the current word,
// is unknown, so the word counts as nothing that could name a command.
func (p *splitter) nested(body string) {
	if p.depth < maxNesting {
		p.out = append(p.out, simpleCommands(body, p.depth+1)...)
	}
	p.word.WriteString("\x00")
}

func (p *splitter) endWord() {
	if !p.inWord {
		return
	}
	switch {
	case !p.redirect:
		p.words = append(p.words, p.word.String())
	case p.heredoc:
		p.docs = append(p.docs, heredoc{p.word.String(), p.strip})
	}
	p.word.Reset()
	p.inWord, p.redirect, p.heredoc, p.strip = false, false, false, false
}

func (p *splitter) endCommand() {
	p.endWord()
	if len(p.words) > 0 {
		p.out = append(p.out, p.words)
	}
	p.words = nil
	p.redirect, p.heredoc, p.strip = false, false, false
}

// commVerbs are the sotd verbs that send, read or take a handle: the ones a
// subagent must not run.
var commVerbs = map[string]bool{"send": true, "poll": true, "join": true, "leave": true, "status": true, "list": true}

// wrappers run the command that follows their options; the value is the options
// that take an argument of their own, and args the plain words before the command.
var wrappers = map[string]struct {
	valued string // options (letters) that take a value
	args   int    // words that are not the command, after the options
}{
	"env": {"uCS", 0}, "command": {}, "builtin": {}, "exec": {"a", 0}, "nohup": {},
	"time": {}, "nice": {"n", 0}, "sudo": {"ugChpDrt", 0}, "xargs": {"IdEeLlnPsa", 0},
	"timeout": {"sk", 1}, "stdbuf": {"ioe", 0}, "!": {}, "{": {}, "then": {}, "do": {},
	"else": {}, "if": {}, "elif": {}, "while": {}, "until": {},
}

var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true}

// RunsCommVerb reports whether a Bash tool command runs a comm verb: sotd send,
// poll, join, leave, status or list, a comm-*.sh script, or a shell given one of
// those to run (sh -c "…", bash script.sh, source, eval), in any of its simple
// commands or substitutions. A command whose name is built at run time
// ($(which sotd), a variable that holds it) is not seen.
func RunsCommVerb(command string) bool {
	return runsComm(command, 0)
}

func runsComm(command string, depth int) bool {
	for _, words := range simpleCommands(command, depth) {
		if commandRunsComm(words, depth) {
			return true
		}
	}
	return false
}

func commandRunsComm(words []string, depth int) bool {
	words = skipPrefixes(words)
	if len(words) == 0 {
		return false
	}
	name, args := program(words[0]), words[1:]
	switch {
	case name == "sotd":
		return len(args) > 0 && commVerbs[args[0]]
	case commScript(name):
		return true
	case name == "source" || name == ".":
		return len(args) > 0 && commScript(program(args[0]))
	case name == "eval":
		return depth < maxNesting && runsComm(strings.Join(args, " "), depth+1)
	case shells[name]:
		return shellRunsComm(args, depth)
	}
	return false
}

// shellRunsComm reads a shell's arguments: with -c (alone or among its letters,
// as in -lc) the first operand is a command line; else it is a script to run.
func shellRunsComm(args []string, depth int) bool {
	inline := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-o" || a == "+o":
			i++ // the shell's -o takes an option name
		case strings.HasPrefix(a, "--"):
		case strings.HasPrefix(a, "-") && len(a) > 1:
			inline = inline || strings.ContainsRune(a[1:], 'c')
		case inline:
			return depth < maxNesting && runsComm(a, depth+1)
		default:
			return commScript(program(a))
		}
	}
	return false
}

// skipPrefixes drops what runs before the command word: variable assignments and
// wrapper programs with their options.
func skipPrefixes(words []string) []string {
	for len(words) > 0 {
		w := words[0]
		if assignment(w) {
			words = words[1:]
			continue
		}
		wr, ok := wrappers[program(w)]
		if !ok {
			return words
		}
		words = words[1:]
		for len(words) > 0 && strings.HasPrefix(words[0], "-") && len(words[0]) > 1 {
			o := words[0]
			words = words[1:]
			if !strings.HasPrefix(o, "--") && strings.ContainsAny(o[len(o)-1:], wr.valued) && len(words) > 0 {
				words = words[1:]
			}
		}
		for n := 0; n < wr.args && len(words) > 0; n++ {
			words = words[1:]
		}
	}
	return words
}

// assignment is NAME=value before a command.
func assignment(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		c := w[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// program is a command word's program name: its last path element (either
// slash), lowercased, without a Windows .exe.
func program(w string) string {
	if w == "" {
		return ""
	}
	w = path.Base(strings.ReplaceAll(w, `\`, "/"))
	return strings.TrimSuffix(strings.ToLower(w), ".exe")
}

func commScript(name string) bool {
	return strings.HasPrefix(name, "comm-") && strings.HasSuffix(name, ".sh") && !strings.ContainsRune(name, 0)
}
