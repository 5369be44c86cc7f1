package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/sotcomm/sotd/wire"
)

func runVersion(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		return usageErr(stderr, "version", args)
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprintf(stdout, "sotd %s\n%s %s/%s\nsot-comm protocol %d\n", buildVersion(info), runtime.Version(), runtime.GOOS, runtime.GOARCH, wire.Protocol)
	return 0
}

// buildVersion is the module version, then the revision and whether the tree
// was modified; "devel" when the build recorded neither (go build -buildvcs=false
// inside the repository).
func buildVersion(info *debug.BuildInfo) string {
	v := ""
	if info != nil && info.Main.Version != "" && info.Main.Version != "(devel)" {
		v = info.Main.Version
	}
	var rev, dirty string
	if info != nil {
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision":
				rev = s.Value
			case s.Key == "vcs.modified" && s.Value == "true":
				dirty = ", modified"
			}
		}
	}
	switch {
	case v == "" && rev == "":
		return "devel"
	case rev == "":
		return v
	case v == "":
		v = "devel"
	}
	return fmt.Sprintf("%s (%s%s)", v, rev, dirty)
}
