package testutil

import (
	"bytes"
	"errors"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Renames counts the files renamed onto name in dir from now on (inotify's
// IN_MOVED_TO): a registry rewrite is one, as the locked replace publishes
// registry.json by rename. The returned func is the count so far; the kernel
// queues each event as the rename happens, so a count taken after a command
// returned includes its writes.
func Renames(t testing.TB, dir, name string) func() int {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		t.Fatalf("inotify: %v", err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	// The kernel merges an event into the last one queued when they are
	// alike: watching creations too (each rewrite creates its temp file
	// first) keeps two renames from being queued one after the other.
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_MOVED_TO|unix.IN_CREATE); err != nil {
		t.Fatalf("inotify watch of %s: %v", dir, err)
	}
	n := 0
	buf := make([]byte, 64<<10)
	return func() int {
		for {
			got, err := unix.Read(fd, buf)
			if errors.Is(err, unix.EAGAIN) {
				return n
			}
			if err != nil {
				t.Fatalf("inotify read: %v", err)
			}
			for off := 0; off+unix.SizeofInotifyEvent <= got; {
				ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
				raw := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
				if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
					t.Fatal("inotify's queue overflowed; renames were not counted")
				}
				if ev.Mask&unix.IN_MOVED_TO != 0 && string(bytes.TrimRight(raw, "\x00")) == name {
					n++
				}
				off += unix.SizeofInotifyEvent + int(ev.Len)
			}
		}
	}
}
