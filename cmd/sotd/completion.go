package main

import (
	"bytes"
	"embed"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
	"text/template"
)

//go:embed completion/*.tmpl
var completionScripts embed.FS

func runCompletion(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 || (args[0] != "bash" && args[0] != "zsh") {
		return usageErr(stderr, "completion", args)
	}
	b, err := completionScript(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "sotd completion: %v\n", err)
		return 1
	}
	stdout.Write(b)
	return 0
}

// completion is what a shell offers after one verb, read from the verb's own
// usage lines, so a verb added to the table is completed with no change here.
type completion struct {
	Name, Synopsis string
	Subs           []string            // words offered first: "install", "check"
	Flags          []string            // "--json"
	Values         map[string][]string // words offered after a flag: --os linux|darwin|windows
	Handles        bool                // its first argument is an @handle
	IDs            []idSpot            // where a row id goes
	Command        bool                // a program's name follows "--" (spawn, run)
}

// idSpot is where a usage line puts a row ID: at word At (the verb is word 1),
// after the word After.
type idSpot struct {
	At    int
	After string
}

// completionScript renders the script for shell from the verb table.
func completionScript(shell string) ([]byte, error) {
	all := byName()
	names := make([]string, len(all))
	cs := make([]completion, len(all))
	for i, v := range all {
		names[i] = v.name
		cs[i] = completionOf(v)
	}
	t, err := template.New(shell+".tmpl").Funcs(template.FuncMap{
		"join":  strings.Join,
		"quote": func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" },
	}).ParseFS(completionScripts, "completion/"+shell+".tmpl")
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	err = t.Execute(&b, struct {
		Names []string
		Verbs []completion
	}{names, cs})
	return b.Bytes(), err
}

// Compiled on first use: only completion reads usage lines, and every verb
// would pay for a compile at package init.
var (
	usageTokens = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[\s\[\]]+`) })
	plainWord   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9.-]*$`) })
)

// completionOf reads a verb's usage lines ("usage: sotd <name> ..." and the
// "sotd <name> ..." lines under it). A word after a flag, or words joined by
// "|" after one, are that flag's values; a "|word" token is an alternative to
// what went before, so a subcommand.
func completionOf(v verb) completion {
	name := v.name
	c := completion{Name: name, Synopsis: v.synopsis, Values: map[string][]string{}}
	for _, line := range strings.Split(v.help, "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "usage:")
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "sotd "+name)
		if !ok || rest != "" && rest[0] != ' ' {
			continue
		}
		flag, at, before := "", 1, name
		for _, tok := range usageTokens().Split(rest, -1) {
			if tok == "" {
				continue
			}
			at++
			alt := strings.HasPrefix(tok, "|")
			after := flag
			flag = ""
			switch {
			case tok == "ID":
				c.IDs = append(c.IDs, idSpot{at, before})
			case before == "--" && (tok == "CMD" || tok == "AGENT"):
				c.Command = true
			}
			before = tok
			for _, w := range strings.Split(strings.Trim(tok, "|"), "|") {
				switch {
				case strings.HasPrefix(w, "--"):
					c.Flags = appendNew(c.Flags, w)
					flag = w
				case w == "@handle":
					c.Handles = true
				case plainWord().MatchString(w) && after != "" && !alt:
					c.Values[after] = appendNew(c.Values[after], w)
				case plainWord().MatchString(w):
					c.Subs = appendNew(c.Subs, w)
				}
			}
		}
	}
	return c
}

func appendNew(list []string, w string) []string {
	if slices.Contains(list, w) {
		return list
	}
	return append(list, w)
}
