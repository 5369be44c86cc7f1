package machine

// OwnDisk reports whether dir is on this machine's own disk: on Linux, when its
// mount is a disk (or memory) file system whose flock is this kernel's (LocalFS).
// An error, or any other mount, is not own disk.
func OwnDisk(dir string) (bool, error) {
	path, err := RealPath(dir)
	if err != nil {
		return false, err
	}
	ms, err := Mounts()
	if err != nil {
		return false, err
	}
	m, ok := MountOf(ms, path)
	return ok && LocalFS(m.FSType), nil
}
