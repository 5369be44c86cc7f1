//go:build windows

package home

import "golang.org/x/sys/windows"

// NoFollow makes an open take a symlink (any reparse point) itself rather than
// its target; os.OpenFile passes these high FILE_FLAG_ bits to CreateFile. The
// link is then opened, not followed, and the descriptor's stat reports it as a
// symlink (or irregular, for a junction), which CheckRegular refuses.
const NoFollow = windows.FILE_FLAG_OPEN_REPARSE_POINT

// nonBlock is nothing here: a named pipe is not a file in a folder, so no open
// of the home's files can wait on one.
const nonBlock = 0
