package client

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
)

// Endpoint is the socket path an endpoint names: a path, or unix:PATH as the
// reference's newer shell client writes it. Another scheme is refused by name.
func Endpoint(endpoint string) (string, error) {
	if p, ok := strings.CutPrefix(endpoint, "unix:"); ok {
		if p == "" {
			return "", fmt.Errorf("endpoint %q names no socket: give unix:PATH", endpoint)
		}
		return p, nil
	}
	if scheme, _, ok := strings.Cut(endpoint, ":"); ok && !strings.ContainsAny(scheme, `/\.`) && len(scheme) > 1 {
		return "", fmt.Errorf("endpoint %q: the stdio bridge reaches a daemon only on its Unix socket, unix:PATH or a path, not %s:", endpoint, scheme)
	}
	return endpoint, nil
}

// Bridge connects to a daemon's Unix socket at endpoint, copies stdin to it
// and its answers to stdout, as the reference shell client's transport. At the
// end of stdin it stops sending and copies answers until the daemon closes;
// when the daemon closes first it stops. The error says which side failed.
func Bridge(endpoint string, stdin io.Reader, stdout io.Writer) error {
	c, err := net.Dial("unix", endpoint)
	if err != nil {
		return fmt.Errorf("the daemon did not answer at %s (%w); start it with sotd serve", endpoint, err)
	}
	conn := c.(*net.UnixConn)
	defer conn.Close()
	// Stdin may never end (a terminal): its copier is left blocked on it when
	// the daemon closes first, and ends with the process.
	sent := make(chan error, 1)
	go func() {
		_, err := io.Copy(conn, stdin)
		conn.CloseWrite()
		sent <- err
	}()
	if _, err := io.Copy(stdout, conn); err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("reading from %s: %w", endpoint, err)
	}
	select {
	case err := <-sent:
		if err != nil && !errors.Is(err, net.ErrClosed) && !isBrokenPipe(err) {
			return fmt.Errorf("sending to %s: %w", endpoint, err)
		}
	default:
	}
	return nil
}

// isBrokenPipe is a send the daemon stopped reading: it closed first, which
// ends the bridge as it should.
func isBrokenPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)
}
