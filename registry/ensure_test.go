package registry

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/sotcomm/sotd/home"
)

func TestEnsurePublishesAnEmptyRegistry(t *testing.T) {
	h, err := home.At(filepath.Join(t.TempDir(), "comm"))
	if err != nil {
		t.Fatal(err)
	}
	if err := Ensure(h); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(h.Registry())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != home.FileMode {
		t.Errorf("registry mode %v, want %v", fi.Mode().Perm(), home.FileMode)
	}
	d, err := Read(h)
	if err != nil {
		t.Fatal(err)
	}
	if d.ProtocolVersion != ProtocolVersion || len(d.Agents) != 0 || d.Extra != nil {
		t.Errorf("skeleton = %+v", d)
	}
	for _, f := range []string{"inbox", "read", "self", "state", "run"} {
		if fi, err := os.Stat(filepath.Join(h.Dir, f)); err != nil || !fi.IsDir() {
			t.Errorf("home folder %s: %v", f, err)
		}
	}
	assertNoLitter(t, h)
}

func assertNoLitter(t *testing.T, h home.Home) {
	t.Helper()
	for _, pat := range []string{"registry.json.new.*", "registry.json.tmp", ".registry.lock", ".registry.lock.tmp.*"} {
		if m, _ := filepath.Glob(filepath.Join(h.Dir, pat)); len(m) > 0 {
			t.Errorf("left behind: %v", m)
		}
	}
}

// Ensure never replaces, truncates or repairs what is there, however broken.
func TestEnsureNeverReplacesARegistry(t *testing.T) {
	tests := []struct {
		name string
		make func(path string) error
	}{
		{"empty", func(p string) error { return os.WriteFile(p, nil, 0o600) }},
		{"corrupt", func(p string) error { return os.WriteFile(p, []byte("{\"agents\": {\"a\":"), 0o600) }},
		{"agents not an object", func(p string) error { return os.WriteFile(p, []byte(`{"agents":[]}`), 0o600) }},
		{"a live registry", func(p string) error { return os.WriteFile(p, []byte(good), 0o644) }},
		{"a directory", func(p string) error { return os.Mkdir(p, 0o700) }},
		{"a dangling symlink", func(p string) error { return os.Symlink(p+".elsewhere", p) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, err := home.At(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.make(h.Registry()); err != nil {
				t.Fatal(err)
			}
			b, fi := mustRead(t, h.Registry())
			if err := Ensure(h); err != nil {
				t.Fatal(err)
			}
			assertUnchanged(t, h.Registry(), b, fi)
			if fi2, _ := os.Lstat(h.Registry()); fi2.Mode() != fi.Mode() {
				t.Errorf("mode changed %v -> %v", fi.Mode(), fi2.Mode())
			}
			assertNoLitter(t, h)
		})
	}
}

// Many at once: one publishes, the others find the name taken, and nobody
// leaves a skeleton behind.
func TestEnsureRace(t *testing.T) {
	h, err := home.At(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() { errs <- Ensure(h) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if _, err := Read(h); err != nil {
		t.Fatal(err)
	}
	assertNoLitter(t, h)
}

func TestEnsureFailsWhenTheHomeCannotBeMade(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	h, err := home.At(filepath.Join(file, "comm"))
	if err != nil {
		t.Fatal(err)
	}
	if err := Ensure(h); err == nil {
		t.Fatal("Ensure under a file succeeded")
	}
}
