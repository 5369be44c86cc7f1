//go:build !linux && !darwin && !windows

package machine

func ID() string           { return Unknown }
func Boot() string         { return Unknown }
func PIDNamespace() string { return Unknown }
func Start(int) string     { return Unknown }

// ProvesDeath reports whether this OS can read the facts a proof of death needs.
const ProvesDeath = false
