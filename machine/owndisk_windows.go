package machine

import (
	"fmt"
	"path/filepath"
	"strings"

	"golang.org/x/sys/windows"
)

// OwnDisk reports whether dir is on this machine's own disk: a fixed drive, not a
// UNC path nor a drive letter mapped to a share. An error is not own disk.
func OwnDisk(dir string) (bool, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false, err
	}
	vol := filepath.VolumeName(abs)
	if vol == "" || strings.HasPrefix(vol, `\\`) {
		return false, nil
	}
	root, err := windows.UTF16PtrFromString(vol + `\`)
	if err != nil {
		return false, fmt.Errorf("the drive of %s: %w", dir, err)
	}
	return windows.GetDriveType(root) == windows.DRIVE_FIXED, nil
}
