package filer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// WatchInboxes calls kick after lines are appended to an inbox in dir (a home's
// inbox/ folder), by any process of this machine, until ctx ends: a client's own
// append (route 1) then starts the wake's pass at once rather than at its next
// tick. One read of the inotify queue makes at most one kick, so a burst of
// appends is a few kicks; kick itself must not block. Writes by other machines
// to a shared (NFS) home are not seen: their mail waits for the wake's tick.
func WatchInboxes(ctx context.Context, dir string, kick func()) error {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return fmt.Errorf("watch the inboxes in %s: %w", dir, err)
	}
	// A nonblocking fd in an os.File reads through Go's poller, so Close ends
	// a read that waits.
	q := os.NewFile(uintptr(fd), "inotify")
	defer q.Close()
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_MODIFY|unix.IN_MOVED_TO); err != nil {
		return fmt.Errorf("watch the inboxes in %s: %w", dir, err)
	}
	stop := context.AfterFunc(ctx, func() { q.Close() })
	defer stop()
	buf := make([]byte, 64<<10)
	for {
		n, err := q.Read(buf)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, os.ErrClosed) {
				return nil
			}
			return fmt.Errorf("watch the inboxes in %s: %w", dir, err)
		}
		if !inboxWritten(buf[:n]) {
			continue
		}
		kick()
		// Events of the coming moment gather (and merge) in the queue: one
		// read, one kick, per kickGap at most.
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(kickGap):
		}
	}
}

// kickGap is the least time between two kicks: well under the wake's MailGap,
// so it delays no pass.
const kickGap = 50 * time.Millisecond

// inboxWritten reports whether the inotify events in b name an inbox (.jsonl),
// not its lock file, or lost some (the queue overflowed).
func inboxWritten(b []byte) bool {
	for len(b) >= unix.SizeofInotifyEvent {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&b[0]))
		if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
			return true
		}
		end := unix.SizeofInotifyEvent + int(ev.Len)
		if end > len(b) {
			return false
		}
		name := bytes.TrimRight(b[unix.SizeofInotifyEvent:end], "\x00")
		if bytes.HasSuffix(name, []byte(".jsonl")) {
			return true
		}
		b = b[end:]
	}
	return false
}
