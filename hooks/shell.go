package hooks

import (
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// maxNesting bounds how deep shell strings run by another shell (sh -c, eval,
// a here-document fed to bash) are followed, so a hostile command cannot make
// the guard recurse without end.
const maxNesting = 8

// maxCommand bounds the command the guard parses: the parser's stack grows with
// a command's nesting, 128 KiB of "((((" takes 512 MB of it, and at 1 GB Go
// ends the process with exit 2, which an agent reads as a block.
const maxCommand = 128 << 10

// unknown stands in a word's name for a part whose value is known only when the
// command runs (a parameter, a substitution's output, arithmetic). No word bash
// runs holds a NUL byte, so a name with one in it names no program and no verb.
const unknown = "\x00"

// RunsCommVerb reports whether a Bash tool command runs a comm verb: sotd send,
// poll, join, leave, status or list, a comm-*.sh script, or a shell given one of
// those to run (sh -c "…", bash script.sh, bash fed a here-document, source,
// eval, find -exec, xargs and the other wrappers), in any of its commands,
// substitutions included. A command whose name is built at run time
// ($(which sotd), a variable that holds it) is not seen. A command the guard
// cannot read (it does not parse as bash, it is too long, or it nests shells
// too deep) comes back as an error, so the caller can refuse it rather than
// pass what it could not check.
func RunsCommVerb(command string) (bool, error) {
	return runsComm(command, 0)
}

func runsComm(src string, depth int) (bool, error) {
	switch {
	case depth > maxNesting:
		return false, fmt.Errorf("it runs shells nested more than %d deep", maxNesting)
	case len(src) > maxCommand:
		return false, fmt.Errorf("it is longer than %d KiB", maxCommand>>10)
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return false, fmt.Errorf("it does not parse as bash (%v)", err)
	}
	var runs bool
	syntax.Walk(f, func(n syntax.Node) bool {
		if runs || err != nil {
			return false
		}
		// Every node is walked, so the commands in a call's own words
		// (substitutions) and in its here-documents are judged too; once
		// one is found, the rest are not.
		if st, ok := n.(*syntax.Stmt); ok {
			if call, ok := st.Cmd.(*syntax.CallExpr); ok {
				runs, err = commandRunsComm(words(call.Args), st.Redirs, depth)
			}
		}
		return true
	})
	return runs, err
}

// word is one shell word as far as it is known before the command runs.
type word struct {
	name string       // its value, with unknown for each part known only at run time
	src  *syntax.Word // nil for an argv element, which is all known
}

func words(ws []*syntax.Word) []word {
	out := make([]word, len(ws))
	for i, w := range ws {
		var b strings.Builder
		for _, p := range w.Parts {
			resolve(p, bare, false, &b)
		}
		out[i] = word{b.String(), w}
	}
	return out
}

// text is what a shell given the word to run reads: its value, with each part
// known only at run time as its shell source, which reads as unknown again.
// Printing that source costs a walk of it, so only a word run as a script pays.
func (w word) text() string {
	if w.src == nil {
		return w.name
	}
	var b strings.Builder
	for _, p := range w.src.Parts {
		resolve(p, bare, true, &b)
	}
	return b.String()
}

// quoting is where a literal stands, which says what a backslash escapes.
type quoting int

const (
	bare    quoting = iota // unquoted: any character
	dquoted                // in double quotes: $ ` " \ and newline
	hdoc                   // in the body of a here-document whose delimiter is unquoted: $ ` \ and newline
)

// resolve adds one part of a word: literal text after quote removal, and an
// ANSI-C $'…' string decoded as bash does, cut at a NUL as bash cuts it. A part
// known only at run time is unknown, or with asSource its shell source.
func resolve(p syntax.WordPart, q quoting, asSource bool, b *strings.Builder) {
	switch p := p.(type) {
	case *syntax.Lit:
		b.WriteString(unescape(p.Value, q))
	case *syntax.SglQuoted:
		v := p.Value
		if p.Dollar {
			v, _, _ = expand.Format(&expand.Config{}, v, nil)
			v, _, _ = strings.Cut(v, "\x00")
		}
		b.WriteString(v)
	case *syntax.DblQuoted:
		for _, part := range p.Parts {
			resolve(part, dquoted, asSource, b)
		}
	default:
		if !asSource {
			b.WriteString(unknown)
			return
		}
		syntax.NewPrinter().Print(b, p)
	}
}

// unescape removes the backslashes that quote a character where q stands. A
// backslash and newline is a line continuation, removed whole.
func unescape(s string, q quoting) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	escapes := map[quoting]string{dquoted: "$`\"\\\n", hdoc: "$`\\\n"}[q]
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) && (q == bare || strings.IndexByte(escapes, s[i+1]) >= 0) {
			i++
			if c = s[i]; c == '\n' {
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// stdinScript is the text a here-document or here-string gives a command's
// stdin, which a shell run with no script reads as its commands.
func stdinScript(redirs []*syntax.Redirect) (string, bool) {
	var script string
	var found bool
	for _, r := range redirs {
		var b strings.Builder
		switch {
		case r.Op == syntax.WordHdoc:
			for _, p := range r.Word.Parts {
				resolve(p, bare, true, &b)
			}
		case (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil:
			raw := quotedDelimiter(r.Word)
			for _, p := range r.Hdoc.Parts {
				if lit, ok := p.(*syntax.Lit); ok && raw {
					b.WriteString(lit.Value) // data: nothing in it is escaped
					continue
				}
				resolve(p, hdoc, true, &b)
			}
		default:
			continue
		}
		script, found = b.String(), true
	}
	return script, found
}

// quotedDelimiter reports whether a here-document's delimiter has any quoting,
// which makes its body data, expanded nowhere.
func quotedDelimiter(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if lit, ok := p.(*syntax.Lit); !ok || strings.Contains(lit.Value, `\`) {
			return true
		}
	}
	return false
}

// commVerbs are the sotd verbs that send, read or take a handle: the ones a
// subagent must not run.
var commVerbs = map[string]bool{"send": true, "poll": true, "join": true, "leave": true, "status": true, "list": true,
	"sent": true, "log": true, "mcp": true, "stdio-bridge": true}

// wrappers run the command that follows their options; the value is the options
// that take an argument of their own, and args the plain words before the command.
var wrappers = map[string]struct {
	valued string // options (letters) that take a value
	args   int    // words that are not the command, after the options
}{
	"env": {"uCS", 0}, "command": {}, "builtin": {}, "exec": {"a", 0}, "nohup": {},
	"time": {}, "nice": {"n", 0}, "sudo": {"ugChpDrt", 0}, "xargs": {"IdEeLlnPsa", 0},
	"timeout": {"sk", 1}, "stdbuf": {"ioe", 0}, "busybox": {}, "doas": {"uC", 0}, "setsid": {},
	"chrt": {"", 1}, "ionice": {"cnp", 0}, "taskset": {"", 1}, "unbuffer": {},
}

// lineRunners run their operands, joined with spaces, as a shell command line:
// watch (sh -c, unless -x), parallel and its kin (each operand, or the joined
// ones, is a command). Their options are skipped; a wrong guess about which take
// a value only puts more words into the line, which is judged all the same.
var lineRunners = map[string]bool{"watch": true, "parallel": true, "sem": true, "rush": true, "entr": true}

// interpreters run code given inline (-c, -e) that no shell parser reads: the
// guard takes such code as running comm when it names sotd or a comm script,
// since os.system("sotd send …") is one call away in each.
var interpreters = map[string]bool{"python": true, "python2": true, "python3": true, "perl": true, "ruby": true,
	"node": true, "nodejs": true, "deno": true, "bun": true, "php": true, "lua": true, "tclsh": true, "osascript": true, "awk": true, "gawk": true}

var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true}

// commandRunsComm judges one simple command's words; redirs are its
// redirections, whose here-documents a shell may run.
func commandRunsComm(ws []word, redirs []*syntax.Redirect, depth int) (bool, error) {
	if line, ok := envSplit(ws); ok {
		return runsComm(line, depth+1)
	}
	ws = skipPrefixes(ws)
	if len(ws) == 0 {
		return false, nil
	}
	name, args := program(ws[0].name), ws[1:]
	switch {
	case lineRunners[name]:
		return lineRunsComm(args, depth)
	case interpreters[name]:
		return namesComm(args), nil
	case name == "sotd":
		return len(args) > 0 && commVerbs[args[0].name], nil
	case commScript(name):
		return true, nil
	case name == "source" || name == ".":
		return len(args) > 0 && commScript(program(args[0].name)), nil
	case name == "eval":
		texts := make([]string, len(args))
		for i, a := range args {
			texts[i] = a.text()
		}
		return runsComm(strings.Join(texts, " "), depth+1)
	case name == "find":
		return findRunsComm(args, depth)
	case shells[name]:
		return shellRunsComm(args, redirs, depth)
	}
	return false, nil
}

// shellRunsComm reads a shell's arguments: with -c (alone or among its letters,
// as in -lc) the first operand is a command line; else the first operand is a
// script to run, and with none (or -s) the shell runs what its stdin gives.
func shellRunsComm(args []word, redirs []*syntax.Redirect, depth int) (bool, error) {
	inline, fromStdin := false, false
	for i := 0; i < len(args); i++ {
		a := args[i].name
		switch {
		case a == "-o" || a == "+o":
			i++ // the shell's -o takes an option name
		case strings.HasPrefix(a, "--"):
		case strings.HasPrefix(a, "-") && len(a) > 1:
			inline = inline || strings.ContainsRune(a[1:], 'c')
			fromStdin = fromStdin || strings.ContainsRune(a[1:], 's')
		case inline:
			return runsComm(args[i].text(), depth+1)
		case fromStdin:
			i = len(args) // the operands are the script's arguments
		default:
			return commScript(program(a)), nil
		}
	}
	if script, ok := stdinScript(redirs); ok && !inline {
		return runsComm(script, depth+1)
	}
	return false, nil
}

// envSplit is the command line env -S (--split-string) runs, with the words
// after it, when the command's prefixes hold one: env splits that string into
// the command and its arguments itself.
func envSplit(ws []word) (string, bool) {
	for i := 0; i < len(ws); i++ {
		if program(ws[i].name) != "env" {
			continue
		}
		for j := i + 1; j < len(ws); j++ {
			o := ws[j].name
			var split string
			switch {
			case o == "-S" || o == "--split-string":
				if j+1 >= len(ws) {
					return "", false
				}
				split, j = ws[j+1].text(), j+1
			case strings.HasPrefix(o, "--split-string="):
				split = strings.TrimPrefix(o, "--split-string=")
			case strings.HasPrefix(o, "-S"):
				split = o[2:]
			case strings.HasPrefix(o, "-"):
				continue
			default:
				j = len(ws)
				continue
			}
			rest := make([]string, 0, len(ws)-j)
			for _, w := range ws[j+1:] {
				rest = append(rest, w.text())
			}
			return strings.TrimSpace(split + " " + strings.Join(rest, " ")), true
		}
	}
	return "", false
}

// lineRunsComm judges a line runner's operands joined, as watch runs them,
// from each operand on: which leading words are option values (watch -n 5) is
// not known, and parallel runs the command it is given after :::. A tail that
// does not parse is an argument's, not a command line's, and is passed over.
func lineRunsComm(args []word, depth int) (bool, error) {
	var texts []string
	for _, a := range args {
		if a.name == ":::" || a.name == "::::" || strings.HasPrefix(a.name, "-") && len(texts) == 0 {
			continue
		}
		texts = append(texts, a.text())
	}
	for i := range texts {
		if runs, _ := runsComm(strings.Join(texts[i:], " "), depth+1); runs {
			return true, nil
		}
	}
	return false, nil
}

// namesComm reports whether an interpreter's arguments name sotd or a comm
// script anywhere: inline code cannot be parsed, so naming is enough.
func namesComm(args []word) bool {
	for _, a := range args {
		t := strings.ToLower(a.text())
		if strings.Contains(t, "sotd") || strings.Contains(t, "comm-") && strings.Contains(t, ".sh") {
			return true
		}
	}
	return false
}

// findRunsComm reads find's actions: -exec, -execdir, -ok and -okdir run the
// words after them, up to a ";" or "+", as a command.
func findRunsComm(args []word, depth int) (bool, error) {
	for i := 0; i < len(args); i++ {
		switch args[i].name {
		case "-exec", "-execdir", "-ok", "-okdir":
			end := i + 1
			for end < len(args) && args[end].name != ";" && args[end].name != "+" {
				end++
			}
			if runs, err := commandRunsComm(args[i+1:end], nil, depth); runs || err != nil {
				return runs, err
			}
			i = end
		}
	}
	return false, nil
}

// skipPrefixes drops what runs before the command word: variable assignments
// written after a wrapper (env X=1 cmd), and wrapper programs with their options.
func skipPrefixes(ws []word) []word {
	for len(ws) > 0 {
		w := ws[0].name
		if assignment(w) {
			ws = ws[1:]
			continue
		}
		wr, ok := wrappers[program(w)]
		if !ok {
			return ws
		}
		ws = ws[1:]
		for len(ws) > 0 && strings.HasPrefix(ws[0].name, "-") && len(ws[0].name) > 1 {
			o := ws[0].name
			ws = ws[1:]
			if !strings.HasPrefix(o, "--") && strings.ContainsAny(o[len(o)-1:], wr.valued) && len(ws) > 0 {
				ws = ws[1:]
			}
		}
		for n := 0; n < wr.args && len(ws) > 0; n++ {
			ws = ws[1:]
		}
	}
	return ws
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
	return strings.HasPrefix(name, "comm-") && strings.HasSuffix(name, ".sh") && !strings.Contains(name, unknown)
}

// simpleCommand is src's words when src is one simple command whose words are
// all known before it runs, as an installed hook's command is: no redirection,
// no assignment, nothing run in the background or negated.
func simpleCommand(src string) ([]string, bool) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil || len(f.Stmts) != 1 {
		return nil, false
	}
	st := f.Stmts[0]
	if len(st.Redirs) > 0 || st.Background || st.Negated || st.Coprocess {
		return nil, false
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 {
		return nil, false
	}
	var out []string
	for _, w := range words(call.Args) {
		if strings.Contains(w.name, unknown) {
			return nil, false
		}
		out = append(out, w.name)
	}
	return out, true
}
