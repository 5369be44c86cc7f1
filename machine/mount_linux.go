package machine

import "os"

// Mounts is this process's mount table, read from /proc/self/mountinfo.
func Mounts() ([]Mount, error) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	return ParseMountinfo(string(b)), nil
}
