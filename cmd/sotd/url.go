package main

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"time"

	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/web"
)

// dialWait bounds the check that the listener named in the home answers.
const dialWait = 2 * time.Second

func runURL(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		return usageErr(stderr, "url", args)
	}
	h, err := home.Resolve()
	if err != nil {
		fmt.Fprintf(stderr, "sotd url: %v\n", err)
		return 1
	}
	u, err := web.URL(h, home.SelfHost())
	if err == nil {
		err = answers(u)
	}
	if err != nil {
		fmt.Fprintf(stderr, "sotd url: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, u)
	return 0
}

// answers checks that a listener is on the URL's address: a daemon that died
// leaves its address file behind, and printing it would send a person to nothing.
func answers(u string) error {
	p, err := url.Parse(u)
	if err != nil {
		return fmt.Errorf("the status page address %q is damaged: %w; restart the daemon", u, err)
	}
	c, err := net.DialTimeout("tcp", p.Host, dialWait)
	if err != nil {
		return fmt.Errorf("no daemon is serving the status page at %s (%w); start it with `sotd serve`", p.Host, err)
	}
	return c.Close()
}
