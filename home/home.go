package home

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Environment variables the protocol names.
const (
	EnvHome        = "SOT_COMM_HOME"
	EnvSocket      = "SOT_SOCKET"
	EnvSelfHost    = "SOT_SELF_HOST"
	EnvName        = "SOT_COMM_NAME"
	EnvWorkspaceID = "SOT_WORKSPACE_ID"
)

// Modes of everything the comm home holds.
const (
	DirMode  fs.FileMode = 0o700
	FileMode fs.FileMode = 0o600
)

// Home is a resolved comm home: an absolute folder that is not "/", not $HOME and
// not a git checkout.
type Home struct {
	Dir string
}

// Resolve finds the comm home: $SOT_COMM_HOME (made absolute), else ~/.sot-comm.
func Resolve() (Home, error) {
	dir := os.Getenv(EnvHome)
	if dir == "" {
		u, err := os.UserHomeDir()
		if err != nil {
			return Home{}, fmt.Errorf("no comm home: $%s is unset and the user's home is unknown (%w); set $%s", EnvHome, err, EnvHome)
		}
		dir = filepath.Join(u, ".sot-comm")
	}
	return At(dir)
}

// At checks dir as a comm home without creating anything.
func At(dir string) (Home, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Home{}, fmt.Errorf("comm home %q: %w", dir, err)
	}
	abs = filepath.Clean(abs)
	if abs == filepath.VolumeName(abs)+string(filepath.Separator) {
		return Home{}, fmt.Errorf("refusing comm home %s: it is the file system's root; set $%s to a folder of its own", abs, EnvHome)
	}
	if u, err := os.UserHomeDir(); err == nil && SameFile(abs, u) {
		return Home{}, fmt.Errorf("refusing comm home %s: it is your home folder itself; set $%s to a folder inside it, such as %s", abs, EnvHome, filepath.Join(u, ".sot-comm"))
	}
	if _, err := os.Lstat(filepath.Join(abs, ".git")); err == nil {
		return Home{}, fmt.Errorf("refusing comm home %s: it is a git checkout, and mail would be committed; set $%s to a folder outside any repository", abs, EnvHome)
	}
	return Home{Dir: abs}, nil
}

// Folders every home has; Ensure creates them 0700.
var folders = []string{"inbox", "read", "self", "state", "run"}

// Ensure creates the home and its folders with mode 0700. It never touches the
// registry: registry.Ensure publishes that by a hard link.
func (h Home) Ensure() error {
	if err := MkdirPrivate(h.Dir); err != nil {
		return err
	}
	for _, f := range folders {
		if err := MkdirPrivate(filepath.Join(h.Dir, f)); err != nil {
			return err
		}
	}
	return nil
}

// MkdirPrivate creates dir (and parents) and makes dir itself 0700 whatever the
// umask. Each folder it creates is flushed into its parent: a new folder is
// otherwise only in memory (fsync(2): a file's fsync does not flush its entry in
// the folder), and a power loss would take it with every file synced into it.
func MkdirPrivate(dir string) error {
	if err := mkdirSynced(dir); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := os.Chmod(dir, DirMode); err != nil {
		return fmt.Errorf("make %s private (0700): %w", dir, err)
	}
	return nil
}

// mkdirSynced is os.MkdirAll, flushing the parent of each folder it creates. A
// folder that already exists costs one stat and no flush.
func mkdirSynced(dir string) error {
	fi, err := os.Stat(dir)
	if err == nil {
		if !fi.IsDir() {
			return &fs.PathError{Op: "mkdir", Path: dir, Err: syscall.ENOTDIR}
		}
		return nil
	}
	parent := filepath.Dir(dir)
	if parent != dir {
		if err := mkdirSynced(parent); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, DirMode); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	// Flushed on EEXIST too: the process that made it first may not have
	// flushed it yet, and this one is about to rely on it.
	return SyncDir(parent)
}

// KeepsOwnMode reports whether a top-level entry of the home is the installer's
// (bin/, VERSION), which keeps the modes the installer gave it.
func KeepsOwnMode(name string) bool { return name == "bin" || name == "VERSION" }

// CloseModes makes every entry the protocol lists 0700 (folders) or 0600 (files),
// so a home an older client left open is closed at the next join. bin/ and VERSION
// are the installer's and keep their modes.
func (h Home) CloseModes() error {
	entries, err := os.ReadDir(h.Dir)
	if err != nil {
		return fmt.Errorf("read comm home %s: %w", h.Dir, err)
	}
	var errs []error
	for _, e := range entries {
		if KeepsOwnMode(e.Name()) {
			continue
		}
		errs = append(errs, filepath.WalkDir(filepath.Join(h.Dir, e.Name()), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			switch {
			case d.Type()&fs.ModeSymlink != 0:
				return nil
			case d.IsDir():
				return os.Chmod(p, DirMode)
			case d.Type().IsRegular():
				return os.Chmod(p, FileMode)
			}
			return nil
		}))
	}
	return errors.Join(errs...)
}

// Kind is a per-handle file.
type Kind int

const (
	Inbox       Kind = iota // inbox/<h>.jsonl
	InboxLock               // inbox/<h>.lock
	Cursor                  // read/<h>.cursor
	CursorIndex             // read/<h>.offset: our byte offset beside the cursor
	// LockFaultTick is state/lock-fault-<h>, the stem of the end-of-turn check's
	// lock-fault tick: the Stop hook adds .<session key>.tick.
	LockFaultTick
)

// HandlePath is the one function that builds a path from a handle; it refuses
// anything CheckHandle refuses.
func (h Home) HandlePath(k Kind, handle string) (string, error) {
	if err := CheckHandle(handle); err != nil {
		return "", err
	}
	switch k {
	case Inbox:
		return filepath.Join(h.Dir, "inbox", handle+".jsonl"), nil
	case InboxLock:
		return filepath.Join(h.Dir, "inbox", handle+".lock"), nil
	case Cursor:
		return filepath.Join(h.Dir, "read", handle+".cursor"), nil
	case CursorIndex:
		return filepath.Join(h.Dir, "read", handle+".offset"), nil
	case LockFaultTick:
		return filepath.Join(h.Dir, "state", "lock-fault-"+handle), nil
	}
	return "", fmt.Errorf("unknown per-handle file kind %d", k)
}

// Fixed entries of the home.
func (h Home) Registry() string     { return filepath.Join(h.Dir, "registry.json") }
func (h Home) RegistryLock() string { return filepath.Join(h.Dir, ".registry.lock") }
func (h Home) LockManager() string  { return filepath.Join(h.Dir, "inbox-lock-manager") }
func (h Home) InboxDir() string     { return filepath.Join(h.Dir, "inbox") }
func (h Home) StateDir() string     { return filepath.Join(h.Dir, "state") }
func (h Home) BinDir() string       { return filepath.Join(h.Dir, "bin") }

// RowPath is the PATH entry a row runs with: bin/ first, so the comm-*.sh shims
// there, and the comm-poll.sh the wake's notice names, are found in every row;
// then the PATH the row had (its env's last PATH, else this process's).
func (h Home) RowPath(env []string) string {
	path := os.Getenv("PATH")
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	if path == "" {
		return "PATH=" + h.BinDir()
	}
	return "PATH=" + h.BinDir() + string(os.PathListSeparator) + path
}

// RunFolder is run/: what daemons keep while they run, in a folder of each
// box's own (RunDir) so a shared home serves several.
func (h Home) RunFolder() string { return filepath.Join(h.Dir, "run") }

// RunDir is run/<host>/, box host's part of RunFolder: its socket, the
// sessions it stamps, its rows' tmux server and runners, its page's address.
func (h Home) RunDir(host string) string { return filepath.Join(h.RunFolder(), FileName(host)) }

// Socket is the local daemon endpoint for box host: $SOT_SOCKET, else
// run/<host>/sotd.sock, one per box so a shared home serves several boxes.
func (h Home) Socket(host string) string {
	if s := os.Getenv(EnvSocket); s != "" {
		return s
	}
	return filepath.Join(h.RunDir(host), "sotd.sock")
}

// FileName writes ':' as '.', because Windows reads a ':' in a name as a stream,
// and '/' as '_' so a name is always one path element.
func FileName(s string) string {
	return strings.NewReplacer(":", ".", "/", "_", `\`, "_").Replace(s)
}

// SelfHost is this box's name: $SOT_SELF_HOST, else the first label of the host
// name, lowercased.
func SelfHost() string {
	if h := os.Getenv(EnvSelfHost); h != "" {
		return h
	}
	n, err := os.Hostname()
	if err != nil || n == "" {
		return "localhost"
	}
	if i := strings.IndexByte(n, '.'); i > 0 {
		n = n[:i]
	}
	return strings.ToLower(n)
}

// EnvSeconds reads a duration given in (possibly fractional) seconds from the
// environment, falling back to def when unset or not a non-negative number.
func EnvSeconds(name string, def time.Duration) time.Duration {
	v := strings.TrimSpace(os.Getenv(name))
	if v == "" {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 {
		return def
	}
	return time.Duration(f * float64(time.Second))
}
