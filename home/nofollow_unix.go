//go:build !windows

package home

import "syscall"

// NoFollow makes an open fail when the path's last element is a symlink.
const NoFollow = syscall.O_NOFOLLOW

// nonBlock makes the open of a FIFO return at once rather than wait for a
// writer (or a reader) that never comes; the regular-file check then refuses
// it. A regular file ignores the flag.
const nonBlock = syscall.O_NONBLOCK
