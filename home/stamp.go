package home

// Stamp is how a file looked when it was last read: which file, its size and
// its modification time. It is the one rule for "has this file changed": every
// writer of the registry, a cursor or hosts.toml replaces it by rename, so a
// write is a new file even with the same size within one mtime tick, and an
// append moves the size. The zero Stamp is a file that is not there (or is no
// regular file).
type Stamp struct {
	ok   bool
	file fileID
	size int64
	mod  int64 // modification time, Unix nanoseconds
}

// Absent reports whether the file was not there when s was taken.
func (s Stamp) Absent() bool { return !s.ok }

// Same reports whether nothing moved between s and o; two absent files are
// the same.
func (s Stamp) Same(o Stamp) bool {
	if !s.ok || !o.ok {
		return s.ok == o.ok
	}
	return s.size == o.size && s.mod == o.mod && s.file.same(o.file)
}

// StampOf stamps a file of the home, opened as OpenFile opens one: never
// through a symlink, and non-blocking, so a FIFO in its place cannot hold the
// look. The look opens the file because an NFS client revalidates a file's
// attributes at an open; a bare stat may answer from its cache.
func StampOf(path string) Stamp { return stampOf(path, false) }

// StampFollowing stamps a file that may be a symlink to the real one, such as
// hosts.toml kept with a person's dotfiles.
func StampFollowing(path string) Stamp { return stampOf(path, true) }
