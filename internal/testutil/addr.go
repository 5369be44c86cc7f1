package testutil

import (
	"net"
	"testing"
)

// FreeUDP is a loopback UDP address nothing listens on (yet): the socket that
// found it is closed before it returns.
func FreeUDP(t testing.TB) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	return pc.LocalAddr().String()
}

// FreeTCP is a loopback TCP address nothing listens on (yet).
func FreeTCP(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// SilentUDP is a loopback UDP address whose packets go unanswered until the
// test ends, as where UDP is blocked on the way: a QUIC handshake to it never
// completes.
func SilentUDP(t testing.TB) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	return pc.LocalAddr().String()
}
