package registry

import "testing"

func TestPromptOrigin(t *testing.T) {
	for _, tc := range []struct {
		name, prompt, want string
	}{
		{"the wake's notice", WakeNotice, FloorMachine},
		{"the notice as typed, with its Enter", WakeNotice + "\r\n", FloorMachine},
		{"a person's prompt", "fix the build", FloorUser},
		{"the notice and more", WakeNotice + " and fix the build", FloorUser},
		{"an empty prompt", "", FloorUser},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := PromptOrigin(tc.prompt); got != tc.want {
				t.Fatalf("PromptOrigin(%q) = %q, want %q", tc.prompt, got, tc.want)
			}
		})
	}
}
