package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"

	"github.com/sotcomm/sotd/home"
)

// Component lengths of a derived handle: the worst case, 20-20-19 with its two
// dashes, is 61 characters, inside the 64 a handle may have.
const (
	BaseMax = 20 // a folder name component
	HostMax = 12 // the box name, before its -<hash6>
)

// Sanitize reduces s to [A-Za-z0-9._-] and cuts it to max bytes, exactly as the
// reference client's sot_sanitize_component does, so a folder joined by either
// client derives one handle: every other byte becomes '-' (a multi-byte rune
// becomes a run), runs of '-' collapse to one, a leading or trailing '-' is
// trimmed, the cut is made, a '-' the cut leaves at the end is trimmed, and an
// empty result is "x". The protocol's "reduced to" is read as the reference reads
// it, replace-and-collapse rather than drop: "My Repo" is My-Repo, not MyRepo.
// Since every component is non-empty, a handle built from them is never "." or "..".
func Sanitize(s string, max int) string {
	var b strings.Builder
	dash := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !home.IsHandleByte(c) || c == '-' {
			if !dash {
				b.WriteByte('-')
			}
			dash = true
			continue
		}
		b.WriteByte(c)
		dash = false
	}
	out := strings.Trim(b.String(), "-")
	if len(out) > max {
		out = strings.TrimRight(out[:max], "-")
	}
	if out == "" {
		return "x"
	}
	return out
}

// HostPart is the box-name component: Sanitize(host, HostMax), with -<hash6> of the
// raw name appended when that changed it, so two boxes whose names reduce alike
// never derive one handle.
func HostPart(host string) string {
	h := Sanitize(host, HostMax)
	if h != host {
		h += "-" + hash6(host)
	}
	return h
}

// hash6 is the first 6 hex digits of SHA-256 of the raw text.
func hash6(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:3])
}

// Tiers are a project's three derived handles, in the order they are tried:
// <base>-<host>, <base>-<parentdir>-<host>, <base>-<hash6(root)>-<host>. root is
// the canonical project root (symlinks resolved by the caller, once, before the
// lock); base and parentdir are its last two path elements, sanitized. The case is
// kept.
func Tiers(root, host string) [3]string {
	base := Sanitize(baseName(root), BaseMax)
	parent := Sanitize(baseName(dirName(root)), BaseMax)
	hp := HostPart(host)
	return [3]string{
		base + "-" + hp,
		base + "-" + parent + "-" + hp,
		base + "-" + hash6(root) + "-" + hp,
	}
}

// baseName is basename(1): the last element, "/" for the root, "" for "".
func baseName(p string) string {
	if p == "" {
		return ""
	}
	return filepath.Base(p)
}

// dirName is dirname(1), which drops trailing separators before it cuts:
// /src/MyRepo/ is in /src, where filepath.Dir would answer /src/MyRepo.
func dirName(p string) string {
	i := len(p)
	for i > len(filepath.VolumeName(p))+1 && os.IsPathSeparator(p[i-1]) {
		i--
	}
	return filepath.Dir(p[:i])
}

// DeriveHandle is sot_derive_handle for a join from row ("" outside any row): the
// first tier no row holds, or that a row holds for this same root (the project
// reclaims its own handle) and that no other row is bound to. A row with no root
// holds its handle for an unknown project, and a handle bound to another row is
// held whatever its root, so a session outside that row never takes its inbox.
// Liveness is not consulted: a stale row keeps its claim, so a handle never flips
// between two projects by who happens to be running. tier is 1, 2 or 3; tier 0
// with an empty handle means every tier is held and the caller asks for an
// explicit --name.
//
// ruling, when not nil, is the daemon's: a tier it holds (a row it runs) is held
// whatever the registry says, and a tier it clears is not held by the row the
// registry binds it to, which has ended; the registry's binding decides a tier
// it does not rule on.
func DeriveHandle(root, host, row string, d *Doc, ruling func(handle string) Ruling) (handle string, tier int) {
	for i, t := range Tiers(root, host) {
		r := NoRuling
		if ruling != nil {
			r = ruling(t)
		}
		if r == Held {
			continue
		}
		e, held := d.Agents[t]
		if !held || e.Root == root && (r == Cleared || !e.BoundElsewhere(row)) {
			return t, i + 1
		}
	}
	return "", 0
}

// Ruling is the daemon's answer on one handle for a join from outside any row
// (agent.join with no row id).
type Ruling int

const (
	NoRuling Ruling = iota // no daemon answered: the registry's binding decides
	Held                   // a row it has not seen end holds the handle
	Cleared                // no row holds it: a binding names a row that ended
)

// BoundElsewhere reports whether the entry names a row other than row as its
// holder; an entry with no workspace_id is bound to none.
func (e *Entry) BoundElsewhere(row string) bool {
	return e.WorkspaceID != "" && e.WorkspaceID != row
}
