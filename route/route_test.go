package route

import (
	"errors"
	"testing"

	"github.com/sotcomm/sotd/wire"

	_ "github.com/sotcomm/sotd/internal/raceexit" // exits without the race detector's second of sleep
)

func TestFor(t *testing.T) {
	for _, tc := range []struct {
		name         string
		hop          Hop
		own, listed  bool
		here, onward bool
	}{
		{"a client appends itself when listed under its own manager", Client, true, true, true, false},
		{"a client hands an unlisted handle to its daemon", Client, true, false, false, true},
		{"a client under another manager hands to its daemon", Client, false, true, false, true},
		{"a standalone daemon files or refuses", Standalone, true, true, true, false},
		{"the hub files here, then offers", Hub, true, true, true, true},
		{"a guest under its own manager files, then forwards", Guest, true, true, true, true},
		{"a guest under another manager forwards", Guest, false, true, false, true},
		{"a guest forwards a handle its registry does not list at once", Guest, true, false, false, true},
		{"an offered request is filed here or refused", Offered, true, true, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if p := For(tc.hop, tc.own, tc.listed); p.Here != tc.here || p.Onward != tc.onward {
				t.Fatalf("For = %+v, want here=%v onward=%v", p, tc.here, tc.onward)
			}
		})
	}
}

func TestFollow(t *testing.T) {
	notHere := wire.NoBoxKnows("bob", nil)
	stale := wire.Refuse(wire.CodeNoLiveSession, "no live session holds @bob")
	busy := wire.Refuse(wire.CodeFileFailed, "the inbox lock for @bob was held for 2s — nothing was appended")
	broken := errors.New("disk gone")
	for _, tc := range []struct {
		name    string
		plan    Plan
		hereErr error
		want    string // "here", "onward" or the refusal's sentence
		gotErr  error  // what onward saw
	}{
		{"filed here", Plan{Here: true, Onward: true}, nil, "here", nil},
		{"not here: sent on, given the refusal", Plan{Here: true, Onward: true}, notHere, "onward", notHere},
		{"stale here: sent on", Plan{Here: true, Onward: true}, stale, "onward", stale},
		{"a held lock ends the route", Plan{Here: true, Onward: true}, busy, busy.Sentence, nil},
		{"an error that is no refusal ends the route", Plan{Here: true, Onward: true}, broken, broken.Error(), nil},
		{"not here with nowhere to go", Plan{Here: true}, notHere, notHere.Sentence, nil},
		{"not tried here: sent on at once", Plan{Onward: true}, busy, "onward", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var saw error
			got, err := Follow(tc.plan,
				func() (string, error) {
					if tc.hereErr != nil {
						return "", tc.hereErr
					}
					return "here", nil
				},
				func(hereErr error) (string, error) { saw = hereErr; return "onward", nil })
			if err != nil {
				got = err.Error()
			}
			if got != tc.want || saw != tc.gotErr {
				t.Fatalf("Follow = %q (onward saw %v), want %q (onward saw %v)", got, saw, tc.want, tc.gotErr)
			}
		})
	}
}
