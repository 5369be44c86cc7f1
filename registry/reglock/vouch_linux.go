package reglock

import (
	"errors"
	"fmt"

	"github.com/sotcomm/sotd/machine"
)

// freshTypes are the filesystems whose reads the protocol counts as fresh; nfs
// and nfs4 only without nocto, which skips the close-to-open revalidation.
var freshTypes = map[string]bool{
	"ext2": true, "ext3": true, "ext4": true, "xfs": true, "btrfs": true,
	"zfs": true, "f2fs": true, "tmpfs": true, "nfs": true, "nfs4": true,
}

// vouch says why a read of dir is not proved fresh, or nil when it is.
func vouch(dir string) error {
	path, err := resolve(dir)
	if err != nil {
		return err
	}
	ms, err := machine.Mounts()
	if err != nil {
		return errors.New("the comm home's mount cannot be read from /proc/self/mountinfo, so no read of it is proved fresh")
	}
	m, ok := machine.MountOf(ms, path)
	if !ok {
		return errors.New("the comm home's mount is not in /proc/self/mountinfo, so no read of it is proved fresh")
	}
	return vouchMount(m)
}

// vouchMount is vouch's judgement of the mount the comm home is on.
func vouchMount(m machine.Mount) error {
	if !freshTypes[m.FSType] {
		return fmt.Errorf("the comm home's filesystem (%s) does not prove a fresh read", m.FSType)
	}
	if m.HasOption("nocto") {
		return errors.New("the comm home is mounted nocto, so no read of it is proved fresh")
	}
	return nil
}
