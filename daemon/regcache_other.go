//go:build !unix

package daemon

import (
	"os"

	"github.com/sotcomm/sotd/home"
)

// regLook is what a registry's look compares: which file, its size and its
// modification time.
type regLook struct {
	ok bool
	fi os.FileInfo
}

func (a regLook) same(b regLook) bool {
	return os.SameFile(a.fi, b.fi) && a.fi.Size() == b.fi.Size() && a.fi.ModTime().Equal(b.fi.ModTime())
}

// lookAt is the attributes of the registry at path, read on a descriptor
// opened for it as home.OpenFile opens one, never through a symlink, with the
// one stat that both says it is a regular file and gives them; !ok when it
// cannot be opened or is none (registry.Read then says why).
func lookAt(path string) regLook {
	f, err := os.OpenFile(path, os.O_RDONLY|home.NoFollow, 0)
	if err != nil {
		return regLook{}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return regLook{}
	}
	return regLook{ok: true, fi: fi}
}
