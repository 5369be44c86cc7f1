package identity

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base32"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sotcomm/sotd/home"
)

// Prefix starts every fingerprint; it names the key's algorithm.
const Prefix = "ed25519:"

// Identity is one box's key, and the certificate made from it.
type Identity struct {
	Box  string // the box's name: the certificate's CN
	Path string // where the key is kept

	// Now dates the certificate; default time.Now.
	Now func() time.Time

	key ed25519.PrivateKey
	fp  string

	mu   sync.Mutex
	cert *certificate
}

// KeyPath is where box's key lives in h.
func KeyPath(h home.Home, box string) string {
	return filepath.Join(h.Dir, "identity", home.FileName(box)+".key")
}

// Load reads box's key from h, making it at the first start. Of several daemons
// that start at once, exactly one key is published and every one of them uses it.
func Load(h home.Home, box string) (*Identity, error) {
	if box == "" {
		return nil, errors.New("identity: no box name given")
	}
	path := KeyPath(h, box)
	key, err := readKey(h, path)
	if errors.Is(err, fs.ErrNotExist) {
		key, err = create(h, path)
	}
	if err != nil {
		return nil, err
	}
	return loaded(box, path, key), nil
}

// Read reads box's key from h without making one, for `sotd doctor`, which must
// not mint a key nobody has pinned: a box with no key yet is an error that
// errors.Is(err, fs.ErrNotExist) matches.
func Read(h home.Home, box string) (*Identity, error) {
	path := KeyPath(h, box)
	key, err := readKey(h, path)
	if err != nil {
		return nil, err
	}
	return loaded(box, path, key), nil
}

func loaded(box, path string, key ed25519.PrivateKey) *Identity {
	pub := key.Public().(ed25519.PublicKey)
	return &Identity{Box: box, Path: path, Now: time.Now, key: key, fp: FingerprintOf(pub)}
}

// Fingerprint is the box's pin, as hosts.toml's key takes it.
func (id *Identity) Fingerprint() string { return id.fp }

// Describe is what `sotd id` prints: the box, then its key's fingerprint as the
// last field of the last line.
func (id *Identity) Describe() string {
	return "box: " + id.Box + "\nkey: " + id.fp
}

// FingerprintOf is the fingerprint of an Ed25519 public key (see the package doc).
func FingerprintOf(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return Prefix + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:]))
}

// maxKey bounds a key file's read: a PEM-encoded ed25519 key is about 120
// bytes.
const maxKey = 16 << 10

// readKey reads the key at path as every home file is read: never through a
// symlink, which would have the box take on a key chosen elsewhere.
func readKey(h home.Home, path string) (ed25519.PrivateKey, error) {
	b, err := h.ReadFile(path, maxKey)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("read this box's key %s: %w; move it aside to make a new key (then update its key in every hosts.toml)", path, err)
	}
	key, err := parseKey(b)
	if err != nil {
		return nil, fmt.Errorf("this box's key %s is unusable: %w; move it aside to make a new key (then update its key in every hosts.toml)", path, err)
	}
	tighten(path)
	return key, nil
}

func parseKey(b []byte) (ed25519.PrivateKey, error) {
	blk, _ := pem.Decode(b)
	if blk == nil || blk.Type != "PRIVATE KEY" {
		return nil, errors.New("it holds no PEM \"PRIVATE KEY\" block")
	}
	k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
	if err != nil {
		return nil, err
	}
	key, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("it holds a %T key, not Ed25519", k)
	}
	return key, nil
}

// tighten closes a key file some other hand left readable to others.
func tighten(path string) {
	if fi, err := os.Stat(path); err == nil && runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		os.Chmod(path, home.FileMode)
	}
}

var tmpSeq atomic.Int64

// create makes a key and publishes it by a hard link, which never replaces an
// existing file: a daemon that loses the race reads the winner's key, and no
// reader ever sees a key half written.
func create(h home.Home, path string) (ed25519.PrivateKey, error) {
	dir := filepath.Dir(path)
	if err := home.MkdirPrivate(dir); err != nil {
		return nil, err
	}
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("make this box's key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("encode this box's key: %w", err)
	}
	tmp := path + ".tmp." + strconv.Itoa(os.Getpid()) + "." + strconv.FormatInt(tmpSeq.Add(1), 10)
	defer os.Remove(tmp)
	if err := writeSynced(tmp, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})); err != nil {
		return nil, fmt.Errorf("write this box's key %s: %w", path, err)
	}
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return readKey(h, path)
		}
		return nil, fmt.Errorf("publish this box's key %s: cannot hard-link in %s: %w", path, dir, err)
	}
	if err := home.SyncDir(dir); err != nil {
		return nil, err
	}
	return key, nil
}

func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, home.FileMode)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
