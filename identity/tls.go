package identity

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"time"
)

// ALPN is the application protocol every link negotiates.
const ALPN = "sot-comm/1"

// Certificate lifetime. Peers check the pin, not the dates (two boxes' clocks may
// disagree), so the validity only keeps a leaked certificate from being useful
// for long; a daemon remakes its certificate once half of it has run.
const (
	CertValidity = 24 * time.Hour
	certBackdate = time.Hour // a peer whose clock runs behind still sees a current certificate
)

type certificate struct {
	tls   tls.Certificate
	renew time.Time
}

// Certificate is the box's current self-signed certificate, made from its key on
// first use and again once half its validity has run.
func (id *Identity) Certificate() (*tls.Certificate, error) {
	now := id.Now()
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.cert != nil && now.Before(id.cert.renew) {
		return &id.cert.tls, nil
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("make a certificate serial: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: id.Box},
		NotBefore:    now.Add(-certBackdate),
		NotAfter:     now.Add(CertValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, id.key.Public(), id.key)
	if err != nil {
		return nil, fmt.Errorf("make this box's certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("read back this box's certificate: %w", err)
	}
	id.cert = &certificate{
		tls:   tls.Certificate{Certificate: [][]byte{der}, PrivateKey: id.key, Leaf: leaf},
		renew: now.Add(CertValidity / 2),
	}
	return &id.cert.tls, nil
}

// PeerFingerprint is the fingerprint of the key the peer's certificate carries.
func PeerFingerprint(cs tls.ConnectionState) (string, error) {
	if len(cs.PeerCertificates) == 0 {
		return "", errors.New("the peer presented no certificate")
	}
	pub, ok := cs.PeerCertificates[0].PublicKey.(ed25519.PublicKey)
	if !ok {
		return "", fmt.Errorf("the peer's certificate carries a %T key, not Ed25519", cs.PeerCertificates[0].PublicKey)
	}
	return FingerprintOf(pub), nil
}

// PinError is a handshake's refusal of a key that does not match its pin, or
// has none; find it with errors.As.
type PinError string

func (e PinError) Error() string { return string(e) }

func refusePin(format string, a ...any) error { return PinError(fmt.Sprintf(format, a...)) }

// Pins maps a peer's fingerprint to the box hosts.toml pins it to.
type Pins func(fingerprint string) (box string, ok bool)

// ServerTLS is the hub's side of a link: TLS 1.3 only, a client certificate
// required, and a peer admitted only when pins names a box for its key. Which box
// that is, the caller asks pins again with PeerFingerprint once the handshake is
// done (the hello's host must match it).
func ServerTLS(id *Identity, pins Pins) *tls.Config {
	return &tls.Config{
		MinVersion:             tls.VersionTLS13,
		NextProtos:             []string{ALPN},
		ClientAuth:             tls.RequireAnyClientCert, // no chain to verify: the pin is checked below
		SessionTicketsDisabled: true,                     // every link shows its key afresh
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
			return id.Certificate()
		},
		VerifyConnection: func(cs tls.ConnectionState) error {
			fp, err := PeerFingerprint(cs)
			if err != nil {
				return refusePin("%v", err)
			}
			if _, ok := pins(fp); !ok {
				return refusePin("no box in hosts.toml is pinned to key %s; if it is one of yours, set key = %q in its [host.<name>] table", fp, fp)
			}
			return nil
		},
	}
}

// ClientTLS is a guest's side of a link to peer (the hub's box name, for the
// error text): TLS 1.3 only, this box's certificate offered, and the peer's key
// required to be want. An empty want refuses every peer.
func ClientTLS(id *Identity, peer, want string) *tls.Config {
	return &tls.Config{
		MinVersion:         tls.VersionTLS13,
		NextProtos:         []string{ALPN},
		InsecureSkipVerify: true, // self-signed: no chain to verify; VerifyConnection checks the pin
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			return id.Certificate()
		},
		VerifyConnection: func(cs tls.ConnectionState) error {
			return checkPin(cs, peer, want)
		},
	}
}

// checkPin refuses a peer whose key is not want.
func checkPin(cs tls.ConnectionState, peer, want string) error {
	if want == "" {
		return refusePin("hosts.toml pins no key for %s, and a link is never made without one; run `sotd id` on %s and set its key in hosts.toml", peer, peer)
	}
	fp, err := PeerFingerprint(cs)
	if err != nil {
		return refusePin("%v", err)
	}
	if fp != want {
		return refusePin("%s presented key %s but hosts.toml pins %s; if %s's key was remade, run `sotd id` there and update its key in hosts.toml", peer, fp, want, peer)
	}
	return nil
}
