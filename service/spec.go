package service

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/topology"
)

// Names the service is known by.
const (
	Name  = "sotd"             // the systemd unit (sotd.service) and the Windows service
	Label = "com.sotcomm.sotd" // the launchd job
)

// carried are the variables a service file keeps when they are set: each
// changes which home, socket, box name or hosts.toml the daemon uses, and a
// service manager starts the daemon with none of the installing shell's.
var carried = []string{home.EnvHome, home.EnvSocket, home.EnvSelfHost, topology.EnvHosts, "XDG_CONFIG_HOME"}

// Var is one environment variable a service file sets.
type Var struct{ Name, Value string }

// Spec is what a service file runs.
type Spec struct {
	Binary string // the sotd binary's absolute path
	Env    []Var  // the carried variables that are set, in carried's order
	// Path is $PATH at install: launchd and systemd start a job with a bare one,
	// and rows need tmux from wherever the shell found it. Unix files only.
	Path string
	// Logs is the folder launchd writes the daemon's stderr into
	// (~/Library/Logs); systemd keeps it in the journal, Windows nowhere.
	Logs string
}

// Current is the spec for this process: its own binary and environment.
func Current() (Spec, error) {
	bin, err := os.Executable()
	if err != nil {
		return Spec{}, fmt.Errorf("the sotd binary's path is unknown (%w); run sotd by its full path", err)
	}
	if r, err := filepath.EvalSymlinks(bin); err == nil {
		bin = r
	}
	s := Spec{Binary: bin, Path: os.Getenv("PATH")}
	for _, n := range carried {
		if v := os.Getenv(n); v != "" {
			s.Env = append(s.Env, Var{n, v})
		}
	}
	if u, err := os.UserHomeDir(); err == nil {
		s.Logs = filepath.Join(u, "Library", "Logs")
	}
	return s, s.check(runtime.GOOS)
}

// check refuses, for a file for goos, what no service file can carry: a line break would end the
// line the value sits on, and a service manager reads a relative binary from
// its own folder, not the shell's.
func (s Spec) check(goos string) error {
	if !absolute(goos, s.Binary) {
		return fmt.Errorf("the sotd binary's path %q is not a full path on %s", s.Binary, goos)
	}
	vals := map[string]string{"the binary's path": s.Binary, "$PATH": s.Path, "the log folder": s.Logs}
	for _, v := range s.Env {
		vals["$"+v.Name] = v.Value
	}
	for what, v := range vals {
		if strings.ContainsAny(v, "\x00\r\n") {
			return fmt.Errorf("%s holds a line break or NUL, which no service file can carry; unset or change it, then install again", what)
		}
	}
	return nil
}

// absolute is filepath.IsAbs for goos, whichever OS asks: a file for Windows
// may be printed on Linux.
func absolute(goos, p string) bool {
	if goos != "windows" {
		return strings.HasPrefix(p, "/")
	}
	return strings.HasPrefix(p, `\\`) || len(p) > 2 && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
}
