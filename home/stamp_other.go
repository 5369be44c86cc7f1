//go:build !unix

package home

import "os"

type fileID struct{ fi os.FileInfo }

func (a fileID) same(b fileID) bool { return os.SameFile(a.fi, b.fi) }

func stampOf(path string, follow bool) Stamp {
	flag := os.O_RDONLY
	if !follow {
		flag |= NoFollow
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return Stamp{}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return Stamp{}
	}
	return Stamp{ok: true, file: fileID{fi}, size: fi.Size(), mod: fi.ModTime().UnixNano()}
}
