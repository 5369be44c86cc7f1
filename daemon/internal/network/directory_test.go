package network

import (
	"slices"
	"testing"

	"github.com/sotcomm/sotd/wire"
)

func TestDiff(t *testing.T) {
	set := func(hs ...string) map[string]bool {
		m := map[string]bool{}
		for _, h := range hs {
			m[h] = true
		}
		return m
	}
	for _, tc := range []struct {
		name      string
		told, now map[string]bool
		want      wire.LinkDirectory
	}{
		{"a new link gets the full set", nil, set("b", "a"), wire.LinkDirectory{Full: true, Added: []string{"a", "b"}}},
		{"an empty full set is still full", nil, set(), wire.LinkDirectory{Full: true}},
		{"changes", set("a", "b"), set("b", "c"), wire.LinkDirectory{Added: []string{"c"}, Removed: []string{"a"}}},
		{"no change", set("a"), set("a"), wire.LinkDirectory{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := diff(tc.told, tc.now)
			if got.Full != tc.want.Full || !slices.Equal(got.Added, tc.want.Added) || !slices.Equal(got.Removed, tc.want.Removed) {
				t.Fatalf("diff = %+v, want %+v", got, tc.want)
			}
		})
	}
}
