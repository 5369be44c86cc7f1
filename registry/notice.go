package registry

import "strings"

// WakeNotice is the one line a daemon's wake types into a row's free prompt:
// it names the command that reads the mail, never the mail itself (a pasted
// message is never marked read, so it would show again).
const WakeNotice = "[sot-comm] you have mail: run comm-poll.sh"

// PromptOrigin is who started a turn, by its prompt: the wake's notice starts
// the machine's turn, any other prompt the user's.
func PromptOrigin(prompt string) string {
	if strings.TrimSpace(prompt) == WakeNotice {
		return FloorMachine
	}
	return FloorUser
}
