package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// BuildSotd builds the sotd binary from the package at pkg (a path relative
// to the calling test's folder, "../cmd/sotd" or ".") into a new temporary
// folder, for a TestMain whose tests run it as a real process; remove the
// folder when the tests end. It is built without the race detector: the code
// it runs is raced in-process by the packages' own tests, and a race-built
// binary costs every one of a suite's hundreds of runs about three times the
// CPU (cmd/sotd's transcripts: 37 s with it, 18 s without, on 2 cores).
func BuildSotd(pkg string) (bin, dir string, err error) {
	dir, err = os.MkdirTemp("", "sotd-bin-")
	if err != nil {
		return "", "", err
	}
	bin = filepath.Join(dir, "sotd")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", "", fmt.Errorf("build sotd from %s: %v\n%s", pkg, err, out)
	}
	return bin, dir, nil
}
