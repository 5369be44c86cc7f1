package daemon

import "github.com/sotcomm/sotd/home"

// privateSocket has nothing to do: Windows keeps no Unix modes, and the socket
// inherits the access list of its folder in the user's profile.
func privateSocket(string) error { return nil }

// socketFolder makes dir, the socket's folder, if it is not there; Windows
// keeps no Unix modes to check.
func socketFolder(dir string) error { return home.MkdirPrivate(dir) }
