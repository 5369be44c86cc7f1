// Package service installs `sotd serve` with the service manager of the OS it
// runs on: a systemd user unit on Linux, a launchd LaunchAgent on macOS and a
// Windows service registered with the service control manager. Each runs
// exactly `sotd serve`, by the binary's absolute path, with the environment that
// says which comm home, socket, box name and hosts.toml the daemon uses, so a
// daemon the OS starts serves the same home the shell that installed it did.
//
// Under the Windows service manager `sotd serve` must answer the manager's Stop
// and Shutdown; Context is the serve verb's lifetime on every OS, so the verb
// itself knows nothing of services.
package service
