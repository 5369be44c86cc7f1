package hooks

import (
	"encoding/json"
	"fmt"
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
var mailVerbs = []string{"poll", "send", "sent", "list", "status", "join", "leave"}

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
	if len(strings.TrimSpace(string(old))) == 0 {
		return object{}, nil
	}
	root, err := parseObject(old)
	if err != nil {
		return nil, fmt.Errorf("%s is not a settings file: %v; fix it by hand", path, err)
	}
	return root, nil
}

// permissionsAdvice is what the install's report says of the rules.
func permissionsAdvice(settings string, want bool) string {
	if !want {
		return "Claude Code asks before it runs sotd's mail verbs (--no-permissions): until a person approves them, a row woken by mail waits at that dialog.\n"
	}
	return fmt.Sprintf("Claude Code runs sotd's mail verbs (sotd poll, send, sent, list, status, join, leave), their comm-*.sh shims and the sot-comm MCP tools without asking: the rules are in %s's permissions.allow (install with --no-permissions to leave them out).\n", settings)
}
