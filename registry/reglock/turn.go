package reglock

import (
	"path/filepath"
	"sync"
)

// turns holds one mutex per lock file: this process's goroutines share one
// record, so one of them at a time may be inside the lock protocol, from Take
// until Release.
var turns sync.Map

// turnFor keys the turn by the lock's real folder, so two spellings of one
// lock (a symlinked home, a relative path) share a turn: with two turns, one
// goroutine would read the lock another holds as left behind, and reclaim it.
func turnFor(path string) *sync.Mutex {
	dir := filepath.Dir(path)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	m, _ := turns.LoadOrStore(filepath.Join(dir, filepath.Base(path)), new(sync.Mutex))
	return m.(*sync.Mutex)
}
