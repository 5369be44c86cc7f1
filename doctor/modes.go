package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sotcomm/sotd/home"
)

// shownPaths bounds how many wrong entries a fix names; the rest are counted.
const shownPaths = 8

// checkModes: every folder of the home is 0700 and every file 0600, except
// the installer's bin/ and VERSION, as join leaves them (home.CloseModes).
func checkModes(e Env) Check {
	c := Check{Name: "home modes"}
	if e.GOOS == "windows" {
		c.Level, c.Detail = OK, "Windows keeps no Unix modes; the home is private by its folder's access list"
		return c
	}
	fi, err := os.Stat(e.Home.Dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.Level, c.Detail = Fail, fmt.Sprintf("there is no comm home at %s", e.Home.Dir)
		c.Fix = "Start the daemon (sotd serve) or join a session (sotd join): either makes it."
		return c
	case err == nil && !fi.IsDir():
		c.Level, c.Detail = Fail, fmt.Sprintf("the comm home %s is not a folder", e.Home.Dir)
		c.Fix = fmt.Sprintf("Move %s aside; the next sotd serve or sotd join makes the home.", e.Home.Dir)
		return c
	case err != nil:
		c.Level, c.Detail = Fail, fmt.Sprintf("the comm home %s cannot be read: %v", e.Home.Dir, err)
		c.Fix = "Make it readable by this user."
		return c
	}
	var dirs, files, unread []string
	filepath.WalkDir(e.Home.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			unread = append(unread, p)
			return nil
		}
		if filepath.Dir(p) == e.Home.Dir && home.KeepsOwnMode(d.Name()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil // gone since it was listed
		}
		switch {
		case d.IsDir() && info.Mode().Perm() != home.DirMode:
			dirs = append(dirs, p)
		case d.Type().IsRegular() && info.Mode().Perm() != home.FileMode:
			files = append(files, p)
		}
		return nil
	})
	if len(unread) > 0 {
		c.Level, c.Detail = Fail, fmt.Sprintf("%d entries of %s cannot be read: %s", len(unread), e.Home.Dir, strings.Join(clipped(unread), ", "))
		c.Fix = "Make them readable by this user (they belong to the comm home's owner)."
		return c
	}
	if len(dirs)+len(files) == 0 {
		c.Level, c.Detail = OK, fmt.Sprintf("every folder of %s is 0700 and every file 0600", e.Home.Dir)
		return c
	}
	c.Level = Fail
	c.Detail = fmt.Sprintf("%d folders not 0700 and %d files not 0600: the home's mail is readable or writable by others", len(dirs), len(files))
	var cmds []string
	if len(dirs) > 0 {
		cmds = append(cmds, "chmod 700 "+quoted(clipped(dirs)))
	}
	if len(files) > 0 {
		cmds = append(cmds, "chmod 600 "+quoted(clipped(files)))
	}
	c.Fix = "Run: " + strings.Join(cmds, "; ")
	if more := len(dirs) + len(files) - len(clipped(dirs)) - len(clipped(files)); more > 0 {
		c.Fix += fmt.Sprintf(" (and %d more; a sotd join closes every one)", more)
	}
	return c
}

func clipped(ps []string) []string { return ps[:min(len(ps), shownPaths)] }

// quoted is paths as one shell word each.
func quoted(ps []string) string {
	q := make([]string, len(ps))
	for i, p := range ps {
		q[i] = "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
