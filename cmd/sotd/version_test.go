package main

import (
	"runtime/debug"
	"testing"
)

func TestBuildVersion(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "f4a1699c"}}
	for _, tc := range []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "devel"},
		{"source build without vcs", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
		{"source build with vcs", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: rev}, "devel (f4a1699c)"},
		{"modified tree", &debug.BuildInfo{Settings: append(rev, debug.BuildSetting{Key: "vcs.modified", Value: "true"})}, "devel (f4a1699c, modified)"},
		{"go install of a release", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "v1.2.0"},
		{"release with its revision", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}, Settings: rev}, "v1.2.0 (f4a1699c)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := buildVersion(tc.info); got != tc.want {
				t.Fatalf("buildVersion = %q, want %q", got, tc.want)
			}
		})
	}
}
