package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Claude Code asks a person before it runs a Bash command or an MCP tool that
// no permission rule allows, so a row woken by mail would sit at "This command
// requires approval" (2.1.197) or "Do you want to proceed?" (2.1.332 in auto
// mode, whose check of an unruled command needs Anthropic's servers) until
// someone answered, in every project. Install adds allow rules for sotd's own
// mail verbs, the shims and the sot-comm MCP tools to the settings'
// permissions.allow, so mail flows with no dialog; --no-permissions leaves them
// out.
//
// The rule forms are those both versions honour, read from their code:
// "Bash(sotd poll *)" is a wildcard rule whose lone trailing " *" also matches
// the bare "sotd poll" (2.1.197 makes it "( .*)?", 2.1.332 "(?: |$)"); a
// compound command is split and each part must match a rule on its own, so
// "sotd poll; rm x" is not allowed by it. The narrow rules survive 2.1.332's
// auto mode, which sets aside only broad ones (a bare Bash, an interpreter,
// curl and the like). "mcp__sot-comm" allows every tool of that server in both.

// mailVerbs are the sotd verbs an agent runs for mail, each allowed with any
// arguments. lock-clear is left out: it breaks a registry lock, a person's call.
var mailVerbs = []string{"poll", "send", "sent", "log", "list", "status", "join", "leave"}

// PermissionRules are the rules Install adds to Claude Code's permissions.allow:
// each mail verb as `sotd <verb>` and as its shim, and the MCP server's tools.
func PermissionRules() []string {
	var rules []string
	for _, v := range mailVerbs {
		rules = append(rules, "Bash(sotd "+v+" *)")
		for _, s := range shimVerbs {
			if s.verb == v {
				rules = append(rules, "Bash("+s.name+" *)")
			}
		}
	}
	return append(rules, "mcp__"+mcpName)
}

// permitted is the settings file with sotd's rules in permissions.allow (want)
// or without them (!want), and the report's line for them ("" when !want took
// none out). Every other rule and key stays, in its order; rules are appended at
// the list's end. A "permissions" or "allow" that taking the rules out leaves
// empty goes too: install made it so.
func permitted(old []byte, want bool, path string) ([]byte, string, error) {
	root, err := settingsRoot(old, path)
	if err != nil {
		return nil, "", err
	}
	perms, allow, have, err := allowList(root, path)
	if err != nil {
		return nil, "", err
	}
	var did []string
	if want {
		for _, r := range PermissionRules() {
			if !slices.Contains(have, r) {
				b, _ := json.Marshal(r)
				allow, did = append(allow, b), append(did, r)
			}
		}
	} else {
		kept := allow[:0]
		for i, r := range allow {
			if slices.Contains(PermissionRules(), have[i]) {
				did = append(did, have[i])
				continue
			}
			kept = append(kept, r)
		}
		allow = kept
	}
	if len(did) == 0 {
		if want {
			return old, fmt.Sprintf("  %-10s permissions.allow: %s\n", unchanged, strings.Join(PermissionRules(), ", ")), nil
		}
		return old, "", nil
	}
	switch {
	case len(allow) > 0:
		err = perms.put("allow", allow)
	default:
		perms.del("allow")
	}
	if err != nil {
		return nil, "", err
	}
	if len(perms) > 0 {
		err = root.put("permissions", perms)
	} else {
		root.del("permissions")
	}
	if err != nil {
		return nil, "", err
	}
	body, err := render(root)
	verb := added
	if !want {
		verb = removed
	}
	return body, fmt.Sprintf("  %-10s permissions.allow: %s\n", verb, strings.Join(did, ", ")), err
}

// allowList is the settings' permissions object and its allow list, as JSON
// values and as text (a value that is no string is "").
func allowList(root object, path string) (perms object, allow []json.RawMessage, have []string, err error) {
	perms = object{}
	if raw, ok := root.get("permissions"); ok {
		if perms, err = parseObject(raw); err != nil {
			return nil, nil, nil, fmt.Errorf(`%s: its "permissions" is not an object; fix it by hand`, path)
		}
	}
	if raw, ok := perms.get("allow"); ok {
		if allow, err = list(raw, path+": permissions.allow"); err != nil {
			return nil, nil, nil, fmt.Errorf("%v; fix it by hand", err)
		}
	}
	for _, r := range allow {
		var s string
		json.Unmarshal(r, &s)
		have = append(have, s)
	}
	return perms, allow, have, nil
}

// settingsRoot parses a settings file's object; an empty or missing file is an
// empty one.
func settingsRoot(old []byte, path string) (object, error) {
	if len(bytes.TrimSpace(old)) == 0 {
		return object{}, nil
	}
	root, err := parseObject(old)
	if err != nil {
		return nil, fmt.Errorf("%s is not a settings file: %v; fix it by hand", path, err)
	}
	return root, nil
}

// permissionsAdvice is what the install's report says of the rules.
func permissionsAdvice(a Agent, settings string, want bool) string {
	switch {
	case a == Codex && want:
		return ""
	case a == Codex:
		return "Codex runs sotd's mail verbs in its sandbox (--no-permissions), where they fail (the comm home is read-only there): each needs a person's approval to run outside it.\n"
	case !want:
		return "Claude Code asks before it runs sotd's mail verbs (--no-permissions): until a person approves them, a row woken by mail waits at that dialog.\n"
	}
	return fmt.Sprintf("Claude Code runs sotd's mail verbs (sotd poll, send, sent, log, list, status, join, leave), their comm-*.sh shims and the sot-comm MCP tools without asking: the rules are in %s's permissions.allow (install with --no-permissions to leave them out).\n", settings)
}

// Codex 0.171 runs an agent's command in its sandbox, where the mail verbs
// fail: the comm home (~/.sot-comm, outside the project) is read-only, so
// `sotd poll` can neither take its inbox lock nor write its read cursor, and
// in a row the sandbox's pid namespace hides the row sotd names its caller by.
// The model must then ask a person to run the command outside the sandbox. A prefix_rule with decision
// "allow" in $CODEX_HOME/rules/ runs the matching command outside the sandbox
// with no approval. Install writes sotd's rules as a file of their own, so
// they are added, replaced and removed whole; --no-permissions leaves it out.

// codexRulesHead starts the rules file: it marks the file as sotd's.
const codexRulesHead = "# sot-comm: written by sotd hooks install --codex (sotd hooks uninstall --codex removes it).\n"

// CodexRulesPath is sotd's rules file beside Codex's hooks.json.
func CodexRulesPath(settings string) string {
	return filepath.Join(filepath.Dir(settings), "rules", "sot-comm.rules")
}

// codexRules is the rules file's bytes: the mail verbs of sotd, and each of
// their shims, allowed with any arguments.
func codexRules() []byte {
	var b strings.Builder
	b.WriteString(codexRulesHead)
	b.WriteString("# Codex runs sotd's mail verbs and their comm-*.sh shims outside its sandbox,\n# with no approval: they write the comm home, which the sandbox keeps read-only.\n")
	fmt.Fprintf(&b, "prefix_rule(pattern = [\"sotd\", [%s]], decision = \"allow\")\n", quoteList(mailVerbs))
	for _, s := range shimVerbs {
		if slices.Contains(mailVerbs, s.verb) {
			fmt.Fprintf(&b, "prefix_rule(pattern = [%q], decision = \"allow\")\n", s.name)
		}
	}
	return []byte(b.String())
}

func quoteList(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = fmt.Sprintf("%q", w)
	}
	return strings.Join(q, ", ")
}

// CodexRules is how sotd's rules file beside Codex's hooks.json at settings
// stands, and its path.
func CodexRules(settings string) (string, Presence, error) {
	path := CodexRulesPath(settings)
	b, _, err := readFile(path)
	return path, presence(b, codexRules(), bytes.HasPrefix(b, []byte(codexRulesHead))), err
}

// codexRulesEdit is the edit that puts sotd's rules file in place (want) or
// takes it out (!want). A file there that is not sotd's is left alone.
func codexRulesEdit(settings string, want bool) (edit, error) {
	path := CodexRulesPath(settings)
	old, mode, err := readFile(path)
	if err != nil {
		return edit{}, err
	}
	e := edit{path: path, old: old, mode: mode, body: old, prune: filepath.Dir(settings)}
	ours := bytes.HasPrefix(old, []byte(codexRulesHead))
	const what = "rules: Codex runs sotd's mail verbs and their shims outside its sandbox, with no approval"
	switch {
	case old != nil && !ours:
		e.say = header(path) + fmt.Sprintf("  %-10s it is not sotd's rules file, so it is left as it is\n", "kept")
	case want && bytes.Equal(old, codexRules()):
		e.say = header(path) + fmt.Sprintf("  %-10s %s\n", unchanged, what)
	case want:
		did := added
		if old != nil {
			did = updated
		}
		e.body = codexRules()
		e.say = header(path) + fmt.Sprintf("  %-10s %s\n", did, what)
	case old != nil:
		e.body = nil
		e.say = header(path) + fmt.Sprintf("  %-10s %s\n", removed, what)
	}
	return e, nil
}
