package machine

import "golang.org/x/sys/windows/registry"

// ID is the MachineGuid Windows keeps under HKLM\SOFTWARE\Microsoft\Cryptography,
// read once per process.
func ID() string { return id() }

var id = memo(func() string {
	k, err := registry.OpenKey(registry.LOCAL_MACHINE, `SOFTWARE\Microsoft\Cryptography`, registry.QUERY_VALUE|registry.WOW64_64KEY)
	if err != nil {
		return Unknown
	}
	defer k.Close()
	s, _, err := k.GetStringValue("MachineGuid")
	return trimmed([]byte(s), err)
})

// Boot, PIDNamespace and Start are not proof facts on Windows.
func Boot() string         { return Unknown }
func PIDNamespace() string { return Unknown }
func Start(int) string     { return Unknown }

// ProvesDeath reports whether this OS can read the facts a proof of death needs.
const ProvesDeath = false
