// Command sendonly is `sotd send @h text` and nothing else, linked from package
// client alone: BenchmarkSendProcess times it beside sotd to measure what a
// second, client-only binary would save (issue 13 keeps one binary). It is a
// measurement, not a product.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/sotcomm/sotd/client"
)

func main() {
	if len(os.Args) != 4 || os.Args[1] != "send" || !strings.HasPrefix(os.Args[2], "@") {
		fmt.Fprintln(os.Stderr, "usage: sendonly send @handle 'message'")
		os.Exit(client.ExitUsage)
	}
	s, err := client.NewSession(os.Stdout, os.Stderr)
	if err != nil {
		fmt.Printf("FAILED: %v\n", err)
		os.Exit(client.ExitFailed)
	}
	os.Exit(s.Send(client.SendArgs{To: os.Args[2][1:], Text: os.Args[3]}))
}
