package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
)

// Claude Code reads its user-scope MCP servers from .claude.json's
// "mcpServers", the file `claude mcp add --scope user` edits. Install adds
// `sotd mcp` there as sot-comm, merge-only, so no claude need be on PATH; the
// same registration by hand is
//
//	claude mcp add --scope user sot-comm -- sotd mcp

// mcpName is the server's key in mcpServers (mcpserver.Name).
const mcpName = "sot-comm"

// mcpTools begins the name Claude Code gives each of the server's tools
// (mcp__sot-comm__send, …), as hook input and permission rules name them.
const mcpTools = "mcp__" + mcpName + "__"

// ClaudeJSONPath is the .claude.json beside Claude Code's settings: ~/.claude.json
// for ~/.claude/settings.json, else the settings' folder's ($CLAUDE_CONFIG_DIR).
func ClaudeJSONPath(settings string) string {
	dir := filepath.Dir(settings)
	if filepath.Base(dir) == ".claude" {
		return filepath.Join(filepath.Dir(dir), ".claude.json")
	}
	return filepath.Join(dir, ".claude.json")
}

// mcpEntry is sot-comm's mcpServers entry for a sotd run as sotd.
func mcpEntry(sotd string) map[string]any {
	return map[string]any{"type": "stdio", "command": sotd, "args": []string{"mcp"}}
}

// registered is .claude.json with sot-comm's entry in mcpServers, and what
// happened to it (added, updated or unchanged).
func registered(old []byte, sotd, path string) ([]byte, string, error) {
	root, servers, err := mcpServers(old, path)
	if err != nil {
		return nil, "", err
	}
	want, _ := json.Marshal(mcpEntry(sotd))
	did := added
	if raw, ok := servers.get(mcpName); ok {
		if sameJSON(raw, want) {
			return old, unchanged, nil
		}
		did = updated
	}
	if err := servers.put(mcpName, json.RawMessage(want)); err != nil {
		return nil, "", err
	}
	if err := root.put("mcpServers", servers); err != nil {
		return nil, "", err
	}
	body, err := renderLike(root, old)
	return body, did, err
}

// unregistered is .claude.json without sot-comm's entry, when it is sotd's
// (`<a sotd> mcp`), and whether it was there; nil when nothing else is left.
func unregistered(old []byte, path string) ([]byte, bool, error) {
	if old == nil {
		return nil, false, nil
	}
	root, servers, err := mcpServers(old, path)
	if err != nil {
		return nil, false, err
	}
	raw, ok := servers.get(mcpName)
	if !ok {
		return old, false, nil
	}
	entry, err := parseObject(raw)
	var args []string
	if a, ok := entry.get("args"); ok {
		json.Unmarshal(a, &args)
	}
	if err != nil || program(entry.text("command")) != "sotd" || len(args) != 1 || args[0] != "mcp" {
		return old, false, nil // another program under our name: not ours to remove
	}
	servers.del(mcpName)
	if len(servers) == 0 {
		root.del("mcpServers")
	} else if err := root.put("mcpServers", servers); err != nil {
		return nil, false, err
	}
	if len(root) == 0 {
		return nil, true, nil
	}
	body, err := renderLike(root, old)
	return body, true, err
}

func mcpServers(old []byte, path string) (root, servers object, err error) {
	root, servers = object{}, object{}
	if len(bytes.TrimSpace(old)) > 0 {
		if root, err = parseObject(old); err != nil {
			return nil, nil, fmt.Errorf("%s is not Claude Code's JSON: %v; fix it by hand", path, err)
		}
	}
	if raw, ok := root.get("mcpServers"); ok {
		if servers, err = parseObject(raw); err != nil {
			return nil, nil, fmt.Errorf(`%s: its "mcpServers" is not an object; fix it by hand`, path)
		}
	}
	return root, servers, nil
}

// renderLike renders as merge does, ending in a newline only when old did (Claude
// Code writes this file without one).
func renderLike(root object, old []byte) ([]byte, error) {
	body, err := render(root)
	if err == nil && len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
		body = bytes.TrimSuffix(body, []byte("\n"))
	}
	return body, err
}

func sameJSON(a, b []byte) bool {
	var x, y bytes.Buffer
	return json.Compact(&x, a) == nil && json.Compact(&y, b) == nil && bytes.Equal(x.Bytes(), y.Bytes())
}
