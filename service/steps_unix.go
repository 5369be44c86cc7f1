//go:build !windows

package service

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/sotcomm/sotd/home"
)

// step is one service-manager command. A step that may fail is one whose
// failure means there was nothing to do (stopping a job that is not loaded).
type step struct {
	args    []string
	mayFail bool
}

func (s step) String() string { return strings.Join(s.args, " ") }

// writeFile renders s as this OS's service file and puts it where FilePath
// says, which it returns.
func (o Options) writeFile(s Spec) (string, error) {
	body, err := Render(runtime.GOOS, s)
	if err != nil {
		return "", err
	}
	p, err := FilePath()
	if err != nil {
		return "", err
	}
	return p, o.write(p, body)
}

// write puts the service file in place.
func (o Options) write(path string, body []byte) error {
	if o.DryRun {
		fmt.Fprintf(o.Out, "would write %s:\n%s", path, body)
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("make the folder for %s: %w", path, err)
	}
	if err := home.WriteAtomic(path, body); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "wrote %s\n", path)
	return nil
}

// installed says whether Install's file is at path, and says so when it is not.
func (o Options) installed(path string) bool {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(o.Out, "no service file at %s: nothing to uninstall\n", path)
		return false
	}
	return true
}

// remove deletes the service file.
func (o Options) remove(path string) error {
	if o.DryRun {
		fmt.Fprintf(o.Out, "would remove %s\n", path)
		return nil
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	fmt.Fprintf(o.Out, "removed %s\n", path)
	return nil
}

// manage runs steps with the service manager tool, or, in a dry run or where
// the tool is not on PATH, prints them for a person to run.
func (o Options) manage(steps ...step) error {
	if len(steps) == 0 {
		return nil
	}
	tool := steps[0].args[0]
	_, lookErr := o.LookPath(tool)
	if o.DryRun || lookErr != nil {
		if o.DryRun {
			fmt.Fprintln(o.Out, "would run:")
		} else {
			fmt.Fprintf(o.Out, "%s is not on PATH; run these where it is:\n", tool)
		}
		for _, s := range steps {
			fmt.Fprintf(o.Out, "  %s\n", s)
		}
		return nil
	}
	for _, s := range steps {
		fmt.Fprintf(o.Out, "running: %s\n", s)
		if err := o.Run(s.args[0], s.args[1:]...); err != nil && !s.mayFail {
			return fmt.Errorf("%s failed (%w); fix what it said, then run it again by hand", s, err)
		}
	}
	return nil
}
