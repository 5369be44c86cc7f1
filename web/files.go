package web

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sotcomm/sotd/home"
)

// Default ports: one of PortSpan above PortBase, picked by the home's path so
// two homes on one box ask for different ports.
const (
	PortBase = 47000
	PortSpan = 1000
)

// DefaultAddr is the loopback address a home's listener asks for first.
func DefaultAddr(h home.Home) string {
	f := fnv.New32a()
	f.Write([]byte(h.Dir))
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(PortBase+int(f.Sum32()%PortSpan)))
}

// AddrFile holds the address the listener of box host is on.
func AddrFile(h home.Home, host string) string { return filepath.Join(h.RunDir(host), "http.addr") }

// TokenFile holds the token every request to box host's listener needs.
func TokenFile(h home.Home, host string) string { return filepath.Join(h.RunDir(host), "http.token") }

// LoadToken returns box host's token, creating it on first use. Two daemons
// racing to create it agree: the file is published by link(2), which never
// replaces, and the loser reads the winner's.
func LoadToken(h home.Home, host string) (string, error) {
	path := TokenFile(h, host)
	if tok, err := readToken(h, path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return tok, err
	}
	if err := home.MkdirPrivate(filepath.Dir(path)); err != nil {
		return "", err
	}
	b := make([]byte, 32)
	rand.Read(b)
	tmp := path + ".tmp." + strconv.Itoa(os.Getpid())
	if err := home.WriteNew(tmp, []byte(hex.EncodeToString(b)+"\n"), (*os.File).Sync); err != nil {
		return "", fmt.Errorf("create the web token %s: %w", path, err)
	}
	if _, err := home.LinkNew(tmp, path); err != nil {
		return "", fmt.Errorf("create the web token %s: %w", path, err)
	}
	return readToken(h, path)
}

// maxSmall bounds the read of the token and the address file, each one short
// line.
const maxSmall = 4096

func readToken(h home.Home, path string) (string, error) {
	b, err := h.ReadFile(path, maxSmall)
	if err != nil {
		return "", err
	}
	tok := strings.TrimSpace(string(b))
	if len(tok) < 32 {
		return "", fmt.Errorf("the web token %s is too short (%d characters); remove it and restart sotd to make a new one", path, len(tok))
	}
	return tok, nil
}

// URL is the status page's address with its token, as `sotd url` prints it,
// read from the files a running listener of box host wrote.
func URL(h home.Home, host string) (string, error) {
	b, err := h.ReadFile(AddrFile(h, host), maxSmall)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("no status page for %s: %s does not exist; start the daemon with `sotd serve`", host, AddrFile(h, host))
	}
	if err != nil {
		return "", fmt.Errorf("read the status page address: %w", err)
	}
	tok, err := readToken(h, TokenFile(h, host))
	if err != nil {
		return "", fmt.Errorf("read the status page token: %w", err)
	}
	return pageURL(strings.TrimSpace(string(b)), tok), nil
}

func pageURL(addr, token string) string {
	return (&url.URL{Scheme: "http", Host: addr, Path: "/", RawQuery: url.Values{"token": {token}}.Encode()}).String()
}
