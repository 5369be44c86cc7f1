package identity

import (
	"crypto/ed25519"
	"crypto/tls"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/sotcomm/sotd/home"
)

func TestCertificateIsFreshAndRenewedAtHalfLife(t *testing.T) {
	id, err := Load(home.Home{Dir: t.TempDir()}, "box-a")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	id.Now = func() time.Time { return now }
	c1, err := id.Certificate()
	if err != nil {
		t.Fatal(err)
	}
	leaf := c1.Leaf
	if leaf.Subject.CommonName != "box-a" {
		t.Errorf("CN = %q, want box-a", leaf.Subject.CommonName)
	}
	if !leaf.NotBefore.Before(now) || !leaf.NotAfter.Equal(now.Add(CertValidity)) {
		t.Errorf("validity %s..%s, want from before %s for %s", leaf.NotBefore, leaf.NotAfter, now, CertValidity)
	}
	if got := FingerprintOf(leaf.PublicKey.(ed25519.PublicKey)); got != id.Fingerprint() {
		t.Errorf("certificate key %s, want the box's %s", got, id.Fingerprint())
	}
	now = now.Add(CertValidity/2 - time.Second)
	if c2, _ := id.Certificate(); c2.Leaf.SerialNumber.Cmp(leaf.SerialNumber) != 0 {
		t.Error("certificate remade before half its validity ran")
	}
	now = now.Add(2 * time.Second)
	c3, _ := id.Certificate()
	if c3.Leaf.SerialNumber.Cmp(leaf.SerialNumber) == 0 || !c3.Leaf.NotAfter.Equal(now.Add(CertValidity)) {
		t.Error("certificate not remade after half its validity ran")
	}
}

// handshake runs one TLS handshake over real loopback TCP and returns each side's
// error and the client's view of the connection.
func handshake(t *testing.T, server, client *tls.Config) (serr, cerr error, cs tls.ConnectionState) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			done <- err
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		tc := tls.Server(c, server)
		err = tc.Handshake()
		if err == nil {
			// TLS 1.3 finishes the client before the server has judged its
			// certificate; a byte back tells the client it was admitted.
			_, err = tc.Write([]byte{1})
		}
		done <- err
	}()
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", ln.Addr().String(), client)
	if err == nil {
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		var b [1]byte
		_, err = c.Read(b[:])
		cs = c.ConnectionState()
	}
	return <-done, err, cs
}

func TestMutualTLSWithPins(t *testing.T) {
	dir := t.TempDir()
	hub, err := Load(home.Home{Dir: dir}, "hub")
	if err != nil {
		t.Fatal(err)
	}
	guest, err := Load(home.Home{Dir: dir}, "guest")
	if err != nil {
		t.Fatal(err)
	}
	stranger, err := Load(home.Home{Dir: dir}, "stranger")
	if err != nil {
		t.Fatal(err)
	}
	pins := func(fp string) (string, bool) {
		if fp == guest.Fingerprint() {
			return "guest", true
		}
		return "", false
	}
	tls12 := func(c *tls.Config) *tls.Config {
		c.MaxVersion = tls.VersionTLS12
		c.MinVersion = tls.VersionTLS12
		return c
	}
	for _, tc := range []struct {
		name         string
		server       *tls.Config
		client       *tls.Config
		serverRefuse string // substring of the server's error; "" when it admits
		clientRefuse string // substring of the client's own error, when it refuses
	}{
		{name: "both pins right", server: ServerTLS(hub, pins), client: ClientTLS(guest, "hub", hub.Fingerprint())},
		{name: "guest key not pinned", server: ServerTLS(hub, pins), client: ClientTLS(stranger, "hub", hub.Fingerprint()),
			serverRefuse: "no box in hosts.toml is pinned to key " + stranger.Fingerprint()},
		{name: "hub key not the pinned one", server: ServerTLS(stranger, pins), client: ClientTLS(guest, "hub", hub.Fingerprint()),
			clientRefuse: "hub presented key " + stranger.Fingerprint() + " but hosts.toml pins " + hub.Fingerprint()},
		{name: "no pin for the hub", server: ServerTLS(hub, pins), client: ClientTLS(guest, "hub", ""),
			clientRefuse: "hosts.toml pins no key for hub"},
		{name: "client offers TLS 1.2 only", server: ServerTLS(hub, pins), client: tls12(ClientTLS(guest, "hub", hub.Fingerprint())),
			serverRefuse: "unsupported versions"},
		{name: "client offers no certificate", server: ServerTLS(hub, pins),
			client:       &tls.Config{InsecureSkipVerify: true, NextProtos: []string{ALPN}},
			serverRefuse: "certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			serr, cerr, cs := handshake(t, tc.server, tc.client)
			admitted := tc.serverRefuse == "" && tc.clientRefuse == ""
			if admitted {
				if serr != nil || cerr != nil {
					t.Fatalf("refused: server %v, client %v", serr, cerr)
				}
				if cs.Version != tls.VersionTLS13 || cs.NegotiatedProtocol != ALPN {
					t.Fatalf("version %x alpn %q, want TLS 1.3 and %s", cs.Version, cs.NegotiatedProtocol, ALPN)
				}
				return
			}
			if cerr == nil || serr == nil {
				t.Fatalf("admitted a peer it must refuse: server %v, client %v", serr, cerr)
			}
			var pe PinError
			if tc.serverRefuse != "" && !strings.Contains(serr.Error(), tc.serverRefuse) {
				t.Errorf("server error %q, want %q", serr, tc.serverRefuse)
			}
			if tc.clientRefuse != "" && (!strings.Contains(cerr.Error(), tc.clientRefuse) || !errors.As(cerr, &pe)) {
				t.Errorf("client error %q, want a PinError saying %q", cerr, tc.clientRefuse)
			}
			if strings.Contains(tc.serverRefuse, "pinned") && !errors.As(serr, &pe) {
				t.Errorf("server error %q is not a PinError", serr)
			}
		})
	}
}
