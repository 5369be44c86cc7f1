package client

import "github.com/sotcomm/sotd/registry/reglock"

// LockClear clears the registry lock only when this box proves its holder dead.
func (s *Session) LockClear() int {
	msg, err := reglock.Clear(s.Home.RegistryLock(), s.Host)
	if err != nil {
		s.out("FAILED: %v", err)
		return ExitFailed
	}
	s.out("%s", msg)
	return ExitOK
}
