package filer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/sotcomm/sotd/home"
)

// Result is the answer for one line of an Append.
type Result struct {
	Dup bool // the inbox already held this line's id; nothing was appended for it
}

// Test hooks: a test swaps these to fail an append's write or fsync, or to write
// half a batch and stop there so another process can kill the writer mid-append.
var (
	writeInbox = func(f *os.File, b []byte) error { _, err := f.Write(b); return err }
	syncInbox  = (*os.File).Sync
	// syncFolder flushes the inbox folder before the first line goes into an
	// empty inbox: fsync(2) keeps a file's bytes, not its name in the folder, and
	// without the name a power loss takes the inbox with every line answered
	// filed. Empty, not just created by this call: a creator that died before its
	// first line may never have flushed the name. One flush per new inbox.
	syncFolder = home.SyncDir
)

// Append files lines into handle's inbox under one lock, one write and one fsync:
// the daemon batches concurrent requests for one inbox into one call (group
// commit). results[i] answers lines[i]. A line that cannot be encoded refuses the
// whole call before the lock is taken; the daemon checks each line with Encode
// before batching it. On any error nothing of this call is in the inbox.
func (f *Filer) Append(handle string, lines []Line) ([]Result, error) {
	inboxPath, err := f.Home.HandlePath(home.Inbox, handle)
	if err != nil {
		return nil, err
	}
	lockPath, err := f.Home.HandlePath(home.InboxLock, handle)
	if err != nil {
		return nil, err
	}
	encoded := make([][]byte, len(lines))
	for i, l := range lines {
		if encoded[i], err = l.Encode(); err != nil {
			return nil, fmt.Errorf("line %d for @%s: %w; nothing was appended", i+1, handle, err)
		}
	}
	lk, err := f.lock(lockPath, true, f.LockWait, writerHeld(handle))
	if err != nil {
		var held *lockHeldError
		if errors.As(err, &held) {
			return nil, err
		}
		return nil, fmt.Errorf("%w — nothing was appended", err)
	}
	defer lk.release()
	return f.appendLocked(inboxPath, handle, lines, encoded)
}

// appendLocked runs inside the lock and closes the inbox before returning, so the
// inbox is never open while the lock is not held.
func (f *Filer) appendLocked(path, handle string, lines []Line, encoded [][]byte) ([]Result, error) {
	inbox, err := f.Home.OpenFile(path, inboxFlags, home.FileMode)
	if errors.Is(err, home.ErrNotRegular) {
		return nil, fmt.Errorf("%w — nothing was appended", err)
	}
	if err != nil {
		return nil, fmt.Errorf("the inbox for @%s could not be opened (%v) — nothing was appended", handle, bareErr(err))
	}
	results, err := f.appendTo(inbox, path, handle, lines, encoded)
	if cerr := inbox.Close(); err == nil && cerr != nil {
		// fsync already succeeded, so the lines are kept; NFS can still report a
		// late write error only here, and the sender must hear of it.
		return nil, fmt.Errorf("the inbox for @%s could not be closed after its append (%v); the lines may be filed", handle, bareErr(cerr))
	}
	return results, err
}

func (f *Filer) appendTo(inbox *os.File, path, handle string, lines []Line, encoded [][]byte) ([]Result, error) {
	// The descriptor's own end, never a path's cached size: under NFS a stat can
	// trail another host's append.
	size, err := inbox.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, fmt.Errorf("the inbox for @%s could not be measured (%v) — nothing was appended", handle, bareErr(err))
	}
	before, err := f.cutBack(inbox, handle, size)
	if err != nil {
		return nil, err
	}
	w, err := f.window(inbox, path, before, lines)
	if err != nil {
		return nil, fmt.Errorf("the end of the inbox for @%s could not be read to check message ids (%v) — nothing was appended", handle, bareErr(err))
	}
	results := make([]Result, len(lines))
	batchIDs := map[string]bool{}
	var batch []byte
	dups := 0
	for i, l := range lines {
		if l.ID != "" {
			if batchIDs[l.ID] || !l.Fresh && w.holds(l.ID) {
				results[i].Dup = true
				dups++
				continue
			}
			batchIDs[l.ID] = true
		}
		batch = append(batch, encoded[i]...)
	}
	if len(batch) > 0 {
		if before == 0 {
			if err := syncFolder(filepath.Dir(path)); err != nil {
				return nil, fmt.Errorf("the folder of the new inbox for @%s could not be flushed to disk (%v) — nothing was appended", handle, bareErr(err))
			}
		}
		if err := writeInbox(inbox, batch); err != nil {
			return nil, f.undo(inbox, handle, before, "written", err)
		}
		began := time.Now()
		if err := syncInbox(inbox); err != nil {
			return nil, f.undo(inbox, handle, before, "flushed to disk", err)
		}
		f.fsynced(time.Since(began))
		f.filed(len(lines) - dups)
	}
	if w != nil {
		w.appended(batch)
		f.windows.put(path, w)
	}
	return results, nil
}

// window is the dedupe window of the inbox at path, end bytes long, brought up to
// date; it is nil when no line has an id to look for (none, or only fresh ones). Its caller puts it back
// after a successful append; on any failure it is dropped, and the next append
// reads the window again.
func (f *Filer) window(inbox *os.File, path string, end int64, lines []Line) (*idWindow, error) {
	wanted := map[string]bool{}
	for _, l := range lines {
		if l.ID != "" && !l.Fresh {
			wanted[l.ID] = true
		}
	}
	if len(wanted) == 0 {
		// A kept window stays where it was; the next append with an id reads
		// these lines as new bytes. A fresh id needs no window: a process that
		// files one line it just minted reads none of the inbox.
		return nil, nil
	}
	file, err := inbox.Stat()
	if err != nil {
		return nil, err
	}
	w := f.windows.take(path)
	if err := w.advance(inbox, file, end, wanted); err != nil {
		return nil, err
	}
	return w, nil
}

// cutBack removes an unterminated last line, a dead writer's partial, so the next
// line starts whole. It returns the inbox's length after the cut.
func (f *Filer) cutBack(inbox *os.File, handle string, size int64) (int64, error) {
	end, err := completeEnd(inbox, size)
	if err != nil {
		return 0, fmt.Errorf("the end of the inbox for @%s could not be read (%v) — nothing was appended", handle, bareErr(err))
	}
	if end == size {
		return size, nil
	}
	if err := inbox.Truncate(end); err != nil {
		return 0, fmt.Errorf("the inbox for @%s ends in an unterminated line that could not be cut back (%v) — nothing was appended", handle, bareErr(err))
	}
	if _, err := inbox.Seek(end, io.SeekStart); err != nil {
		return 0, fmt.Errorf("the inbox for @%s could not be positioned after its cut-back (%v) — nothing was appended", handle, bareErr(err))
	}
	f.log().Warn("cut back an unterminated last line (a dead writer's partial) before appending", "handle", handle, "bytes", size-end, "offset", end)
	return end, nil
}

// undo cuts a failed append back to the length before it.
func (f *Filer) undo(inbox *os.File, handle string, before int64, what string, cause error) error {
	if err := inbox.Truncate(before); err != nil {
		return fmt.Errorf("the lines for @%s could not be %s (%v), and cutting them back failed too (%v); the next append cuts back any partial line", handle, what, bareErr(cause), bareErr(err))
	}
	if _, err := inbox.Seek(before, io.SeekStart); err == nil {
		syncInbox(inbox) // best effort: the cut matters only if the write reached the disk
	}
	return fmt.Errorf("the lines for @%s could not be %s (%v) — nothing was appended", handle, what, bareErr(cause))
}

// completeEnd is the offset just past the last newline before size: the length
// the inbox has when only its newline-terminated lines count.
func completeEnd(r io.ReaderAt, size int64) (int64, error) {
	if size == 0 {
		return 0, nil
	}
	var last [1]byte
	if _, err := r.ReadAt(last[:], size-1); err != nil {
		return 0, err
	}
	if last[0] == '\n' {
		return size, nil
	}
	return lineStart(r, size)
}

// lineStart is the offset just past the last newline before end (0 when none):
// where the line that ends at end begins.
func lineStart(r io.ReaderAt, end int64) (int64, error) {
	buf := make([]byte, 4096)
	for end > 0 {
		n := min(int64(len(buf)), end)
		chunk := buf[:n]
		if _, err := r.ReadAt(chunk, end-n); err != nil {
			return 0, err
		}
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			return end - n + int64(i) + 1, nil
		}
		end -= n
		if len(buf) < 1<<20 {
			buf = make([]byte, 2*len(buf))
		}
	}
	return 0, nil
}
