package filer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// WatchInboxes calls kick with a handle after lines are appended to its inbox in
// dir (a home's inbox/ folder), by any process of this machine, until ctx ends:
// a client's own append (route 1) then starts the wake's pass at once rather
// than at its next tick. One read of the inotify queue kicks each handle at most
// once, and reads are kickGap apart, so a burst of appends is a few kicks; kick
// itself must not block. A lost event (the queue overflowed) kicks "". Writes by other machines
// to a shared (NFS) home are not seen: their mail waits for the wake's tick.
func WatchInboxes(ctx context.Context, dir string, kick func(handle string)) error {
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
		written := inboxesWritten(buf[:n])
		if len(written) == 0 {
			continue
		}
		for h := range written {
			kick(h)
		}
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

// inboxesWritten is the handles whose inbox (.jsonl, not its lock file) the
// inotify events in b name, and "" when some were lost (the queue overflowed).
func inboxesWritten(b []byte) map[string]bool {
	out := map[string]bool{}
	for len(b) >= unix.SizeofInotifyEvent {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&b[0]))
		if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
			out[""] = true
		}
		end := unix.SizeofInotifyEvent + int(ev.Len)
		if end > len(b) {
			break
		}
		name := string(bytes.TrimRight(b[unix.SizeofInotifyEvent:end], "\x00"))
		if h, ok := strings.CutSuffix(name, ".jsonl"); ok {
			out[h] = true
		}
		b = b[end:]
	}
	return out
}
