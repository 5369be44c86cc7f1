// Package identity is a box's key and the TLS that proves it on a link.
//
// Each box makes an Ed25519 key at its first start and keeps it in the comm home
// (identity/<box>.key, PKCS#8 PEM, 0600). The key is per box, not per home: two
// boxes on one shared home (a hub and a guest mounting its folder) are two
// identities, and hosts.toml pins each one separately.
//
// A box is known by its key's fingerprint:
//
//	ed25519:<lowercase unpadded base32 (RFC 4648) of SHA-256 of the raw 32-byte public key>
//
// 60 characters in all; `sotd id` prints it as the last field of its last line,
// exactly as hosts.toml's key takes it.
//
// Links use mutual TLS 1.3 with a certificate made fresh in memory from the key
// (self-signed, CN = the box's name, valid for a day and remade before it runs out).
// No certificate chain is checked: each side checks the other's public key against
// its pin instead. There is no trust on first use — a peer with no pin gets no link.
package identity
