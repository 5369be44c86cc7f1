//go:build !windows

package home

import "syscall"

// NoFollow makes an open fail when the path's last element is a symlink.
const NoFollow = syscall.O_NOFOLLOW
