//go:build !windows

package client

import (
	"bytes"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sotcomm/sotd/filer"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/wire"
)

// A box that holds many live handles and never answers holds only its own
// copies of a broadcast: the copies to the sessions listed after them are
// filed, the silent box's are answered FAILED, and the whole broadcast answers
// within one send's window. One copy at a time, the 40 silent copies took a
// window each (over two minutes) before the others were sent.
func TestABroadcastIsNotHeldByASilentBox(t *testing.T) {
	dir := testutil.ShortDir(t, "c")
	h, err := home.At(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(home.EnvName, "")
	t.Setenv(filer.EnvInboxLockWait, "0.5") // the window: 0.5 s + 3 s
	var out, errs bytes.Buffer
	s := &Session{Home: h, Host: "box", Cwd: t.TempDir(), Stdout: &out, Stderr: &errs, Now: time.Now}
	if code := s.Join(JoinArgs{Name: "alice"}); code != ExitOK {
		t.Fatalf("join: %d %s", code, out.String())
	}
	var entries []wire.ViewEntry
	var silent, heard []string
	for i := range 40 {
		silent = append(silent, fmt.Sprintf("aa-%02d", i))
		entries = append(entries, wire.ViewEntry{Handle: silent[i], Box: "silent", Live: true})
	}
	for i := range 10 {
		heard = append(heard, fmt.Sprintf("zz-%02d", i))
		entries = append(entries, wire.ViewEntry{Handle: heard[i], Box: "gb", Live: true})
	}
	d := fakeDaemon(t, h.Socket("box"), wire.NetList{Box: "box", Known: true, Entries: entries}, "silent")
	out.Reset()
	start := time.Now()
	if code := s.Send(SendArgs{Broadcast: true, Text: "rebasing main"}); code != ExitFailed {
		t.Errorf("broadcast exit %d, want %d (the silent box's copies failed)", code, ExitFailed)
	}
	took := time.Since(start)
	got := out.String()
	for _, to := range heard {
		if !strings.Contains(got, "filed -> @"+to+"\n") || !d.filed(to) {
			t.Errorf("the copy to @%s, listed after the silent box's, was not filed:\n%s", to, got)
		}
	}
	for _, to := range silent {
		if !strings.Contains(got, "FAILED -> @"+to+": ") {
			t.Errorf("the copy to @%s on the silent box is not answered FAILED:\n%s", to, got)
		}
	}
	// The window is 3.5 s; the rest is room for a loaded machine, far below
	// the 140 s of copies one at a time.
	if took > 10*time.Second {
		t.Errorf("the broadcast answered after %s, want one send's window (3.5 s)", took.Round(time.Millisecond))
	}
	if n := d.mostAtOnce("silent"); n > copiesPerBox {
		t.Errorf("%d copies were in flight to the silent box at once, want at most %d", n, copiesPerBox)
	}
}

// daemonFake is a daemon on sock that answers net.list with a view, files every
// comm.file for a box other than silent and never answers one for silent.
type daemonFake struct {
	mu       sync.Mutex
	got      map[string]bool
	inFlight map[string]int
	most     map[string]int
}

func (d *daemonFake) filed(h string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.got[h]
}

func (d *daemonFake) mostAtOnce(box string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.most[box]
}

func fakeDaemon(t *testing.T, sock string, view wire.NetList, silent string) *daemonFake {
	t.Helper()
	if err := home.MkdirPrivate(filepath.Dir(sock)); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	boxOf := map[string]string{}
	for _, e := range view.Entries {
		boxOf[e.Handle] = e.Box
	}
	d := &daemonFake{got: map[string]bool{}, inFlight: map[string]int{}, most: map[string]int{}}
	stop := make(chan struct{})
	var conns sync.WaitGroup
	t.Cleanup(func() { close(stop); ln.Close(); conns.Wait() })
	conns.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Go(func() {
				defer c.Close()
				go func() { <-stop; c.Close() }()
				r, w := wire.NewReader(c), wire.NewWriter(c)
				for {
					env, err := r.Read()
					if err != nil {
						return
					}
					switch env.Op {
					case wire.OpHello:
						w.Write(env.ID, wire.KindRes, env.Op, wire.HelloOK{Host: "box", Protocol: wire.Protocol})
					case wire.OpNetList:
						w.Write(env.ID, wire.KindRes, env.Op, view)
					case wire.OpCommFile:
						var req wire.CommFile
						wire.DecodePayload(env.Payload, &req)
						box := boxOf[req.To]
						d.mu.Lock()
						d.inFlight[box]++
						d.most[box] = max(d.most[box], d.inFlight[box])
						d.mu.Unlock()
						if box == silent {
							<-stop // the box never answers; the client gives up
							return
						}
						d.mu.Lock()
						d.got[req.To] = true
						d.inFlight[box]--
						d.mu.Unlock()
						w.Write(env.ID, wire.KindRes, env.Op, wire.CommFiled{OK: true, To: req.To})
					}
				}
			})
		}
	})
	return d
}

// The copies this client appends itself (route 1) are not held to one box's
// bound: copiesHere of them are in flight at once, and no more. Held to
// copiesPerBox, a broadcast to 5,000 local sessions took its fsyncs 4 at a time.
func TestABroadcastAppendsCopiesHereAtOnce(t *testing.T) {
	s := broadcastHome(t, 3*copiesHere)
	orig := appendLines
	t.Cleanup(func() { appendLines = orig })
	var mu sync.Mutex
	inFlight, most := 0, 0
	all := make(chan struct{}) // closed once copiesHere copies are in flight
	appendLines = func(f *filer.Filer, h string, lines []filer.Line) ([]filer.Result, error) {
		mu.Lock()
		inFlight++
		if inFlight > most {
			most = inFlight
			if most == copiesHere {
				close(all)
			}
		}
		mu.Unlock()
		defer func() {
			mu.Lock()
			inFlight--
			mu.Unlock()
		}()
		select {
		case <-all:
		case <-time.After(2 * time.Second): // fewer never come: file it anyway
		}
		return orig(f, h, lines)
	}
	if code := s.Send(SendArgs{Broadcast: true, Text: "rebasing main"}); code != ExitOK {
		t.Errorf("broadcast exit %d, want %d", code, ExitOK)
	}
	if most != copiesHere {
		t.Errorf("%d copies were appended here at once, want %d", most, copiesHere)
	}
}
