package hub

import (
	"strings"
	"testing"

	"github.com/sotcomm/sotd/filer"
)

func TestOwnDisk(t *testing.T) {
	tmp := t.TempDir()
	m, err := filer.ComputeManager(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dir     string
		want    bool
		wantErr bool
	}{
		{tmp, strings.HasPrefix(m, "local "), false}, // ext4, xfs, tmpfs …: own disk
		{"/proc/self", false, false},                 // procfs: its lock is no disk's
	} {
		got, err := OwnDisk(tc.dir)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("OwnDisk(%s) = %v, %v; want %v (error %v)", tc.dir, got, err, tc.want, tc.wantErr)
		}
	}
}
