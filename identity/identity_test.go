package identity

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/sotcomm/sotd/home"

	_ "github.com/sotcomm/sotd/internal/raceexit" // exits without the race detector's second of sleep
)

func TestFingerprintOfIsTheDocumentedFormat(t *testing.T) {
	// Checked outside Go: the public key of the all-zero seed, through
	// `xxd -r -p | sha256sum`, then `base32 | tr A-Z a-z | tr -d =`.
	pub := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)).Public().(ed25519.PublicKey)
	const want = "ed25519:copdsqhgjnkjc4rardm2bv2bmkh4qjxasr25gqnhqcwn4pclqbya"
	if got := FingerprintOf(pub); got != want {
		t.Fatalf("FingerprintOf(zero seed) = %q, want %q", got, want)
	}
}

var fingerprintRE = regexp.MustCompile(`^ed25519:[a-z2-7]{52}$`)

func TestLoadMakesAKeyOnceAndKeepsIt(t *testing.T) {
	h := home.Home{Dir: filepath.Join(t.TempDir(), "comm")}
	first, err := Load(h, "box-a")
	if err != nil {
		t.Fatal(err)
	}
	if !fingerprintRE.MatchString(first.Fingerprint()) {
		t.Fatalf("fingerprint %q is not ed25519:<52 base32 characters>", first.Fingerprint())
	}
	fi, err := os.Stat(first.Path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != home.FileMode {
		t.Errorf("key file mode %v, want %v", fi.Mode().Perm(), home.FileMode)
	}
	b, _ := os.ReadFile(first.Path)
	if blk, _ := pem.Decode(b); blk == nil || blk.Type != "PRIVATE KEY" {
		t.Fatalf("key file is not a PKCS#8 PEM block:\n%s", b)
	}
	again, err := Load(h, "box-a")
	if err != nil {
		t.Fatal(err)
	}
	if again.Fingerprint() != first.Fingerprint() {
		t.Fatalf("second Load fingerprint %s, want the first's %s", again.Fingerprint(), first.Fingerprint())
	}
	other, err := Load(h, "box-b")
	if err != nil {
		t.Fatal(err)
	}
	if other.Fingerprint() == first.Fingerprint() {
		t.Fatal("two boxes on one shared home got the same key")
	}
	lines := strings.Split(first.Describe(), "\n")
	last := strings.Fields(lines[len(lines)-1])
	if lines[0] != "box: box-a" || last[len(last)-1] != first.Fingerprint() {
		t.Fatalf("Describe() = %q, want box: box-a and the fingerprint as the last field", first.Describe())
	}
}

func TestLoadRefusesAnUnusableKey(t *testing.T) {
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecDER, _ := x509.MarshalPKCS8PrivateKey(ec)
	for _, tc := range []struct {
		name  string
		plant func(path string) error
		want  string
	}{
		{"not PEM", func(p string) error { return os.WriteFile(p, []byte("hello"), 0o600) }, "no PEM"},
		{"wrong block", func(p string) error {
			return os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1}}), 0o600)
		}, "no PEM"},
		{"not PKCS#8", func(p string) error {
			return os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1, 2, 3}}), 0o600)
		}, "unusable"},
		{"ECDSA key", func(p string) error {
			return os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: ecDER}), 0o600)
		}, "not Ed25519"},
		{"a folder where the key goes", func(p string) error { return os.Mkdir(p, 0o700) }, "read this box's key"},
		// A link to a key elsewhere is never followed: the box would take on a
		// key whoever wrote the link chose.
		{"a symlink to a key elsewhere", func(p string) error {
			other, err := Load(home.Home{Dir: filepath.Join(filepath.Dir(p), "..", "elsewhere")}, "box")
			if err != nil {
				return err
			}
			return os.Symlink(other.Path, p)
		}, "identity/box.key is a symlink, not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := home.Home{Dir: t.TempDir()}
			p := KeyPath(h, "box")
			if err := home.MkdirPrivate(filepath.Dir(p)); err != nil {
				t.Fatal(err)
			}
			var link *os.LinkError
			if err := tc.plant(p); errors.As(err, &link) {
				t.Skipf("cannot make a symlink here: %v", err)
			} else if err != nil {
				t.Fatal(err)
			}
			_, err := Load(h, "box")
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "move it aside") {
				t.Fatalf("Load = %v; want an error naming %s, %q and the recovery", err, p, tc.want)
			}
		})
	}
}

func TestLoadTightensALooseKey(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows keeps access in ACLs, not mode bits")
	}
	h := home.Home{Dir: t.TempDir()}
	id, err := Load(h, "box")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(id.Path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(h, "box"); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(id.Path); fi.Mode().Perm() != home.FileMode {
		t.Fatalf("key mode after Load %v, want %v", fi.Mode().Perm(), home.FileMode)
	}
}

const helperEnv = "SOTD_IDENTITY_HELPER_HOME"

// TestHelperLoad is a daemon starting: it loads the box's key and prints its
// fingerprint. It runs only as a child of TestLoadRaceAcrossProcesses.
func TestHelperLoad(t *testing.T) {
	dir := os.Getenv(helperEnv)
	if dir == "" {
		t.Skip("helper process only")
	}
	id, err := Load(home.Home{Dir: dir}, "box")
	if err != nil {
		os.Stderr.WriteString(err.Error())
		os.Exit(1)
	}
	os.Stdout.WriteString(id.Fingerprint() + "\n")
	os.Exit(0)
}

func TestLoadRaceAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	const n = 6
	outs := make([]bytes.Buffer, n)
	cmds := make([]*exec.Cmd, n)
	for i := range cmds {
		cmds[i] = exec.Command(os.Args[0], "-test.run=^TestHelperLoad$")
		cmds[i].Env = append(os.Environ(), helperEnv+"="+dir)
		cmds[i].Stdout = &outs[i]
		cmds[i].Stderr = &outs[i]
	}
	var wg sync.WaitGroup
	for _, c := range cmds {
		wg.Go(func() {
			if err := c.Run(); err != nil {
				t.Errorf("helper: %v", err)
			}
		})
	}
	wg.Wait()
	want := ""
	for i := range outs {
		got := strings.TrimSpace(outs[i].String())
		if !fingerprintRE.MatchString(got) {
			t.Fatalf("helper %d printed %q, want a fingerprint", i, got)
		}
		if want == "" {
			want = got
		}
		if got != want {
			t.Fatalf("helper %d loaded %s, another %s: two keys for one box", i, got, want)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "identity"))
	if len(entries) != 1 || entries[0].Name() != "box.key" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("identity/ holds %v, want only box.key (no temp files left)", names)
	}
}

func TestLoadRaceInOneProcess(t *testing.T) {
	h := home.Home{Dir: t.TempDir()}
	fps := make([]string, 16)
	var wg sync.WaitGroup
	for i := range fps {
		wg.Go(func() {
			id, err := Load(h, "box")
			if err != nil {
				t.Error(err)
				return
			}
			fps[i] = id.Fingerprint()
		})
	}
	wg.Wait()
	for i, fp := range fps {
		if fp != fps[0] {
			t.Fatalf("loader %d got %s, loader 0 %s: two keys for one box", i, fp, fps[0])
		}
	}
}

func TestReadMakesNoKey(t *testing.T) {
	h := home.Home{Dir: filepath.Join(t.TempDir(), "comm")}
	if id, err := Read(h, "box-a"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Read with no key = %v, %v; want fs.ErrNotExist", id, err)
	}
	if _, err := os.Stat(KeyPath(h, "box-a")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Read made a key: %v", err)
	}
	made, err := Load(h, "box-a")
	if err != nil {
		t.Fatal(err)
	}
	read, err := Read(h, "box-a")
	if err != nil || read.Fingerprint() != made.Fingerprint() {
		t.Fatalf("Read = %v, %v; want the key Load made (%s)", read, err, made.Fingerprint())
	}
}
