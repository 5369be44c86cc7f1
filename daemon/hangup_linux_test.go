package daemon

import (
	"net"
	"path/filepath"
	"testing"
)

// TestHungUpTellsAHangUpFromAHalfClose: a client that closes only its sending
// half still reads its answers, so only one that closes its whole socket has
// hung up.
func TestHungUpTellsAHangUpFromAHalfClose(t *testing.T) {
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(t.TempDir(), "s"), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for _, tc := range []struct {
		name string
		end  func(*net.UnixConn) error
		want bool
	}{
		{"still open", func(*net.UnixConn) error { return nil }, false},
		{"half-closed", (*net.UnixConn).CloseWrite, false},
		{"closed", (*net.UnixConn).Close, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client, err := net.DialUnix("unix", nil, ln.Addr().(*net.UnixAddr))
			if err != nil {
				t.Fatal(err)
			}
			defer client.Close()
			server, err := ln.AcceptUnix()
			if err != nil {
				t.Fatal(err)
			}
			defer server.Close()
			if err := tc.end(client); err != nil {
				t.Fatal(err)
			}
			if got := hungUp(server); got != tc.want {
				t.Fatalf("hungUp = %v, want %v", got, tc.want)
			}
		})
	}
}
