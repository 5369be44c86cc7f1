package filer

import (
	"bufio"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/sotcomm/sotd/home"
)

// TestHelperProcess is not a test: it is the body of the child processes the
// multi-process tests start, chosen by $FILER_HELPER.
func TestHelperProcess(t *testing.T) {
	role := os.Getenv(helperEnv)
	if role == "" {
		t.Skip("only runs as a helper process")
	}
	if err := runHelper(role); err != nil {
		fmt.Fprintf(os.Stderr, "helper %s: %v\n", role, err)
		os.Exit(1)
	}
	os.Exit(0)
}

func runHelper(role string) error {
	h, err := home.At(os.Getenv("FILER_HOME"))
	if err != nil {
		return err
	}
	f := &Filer{Home: h, LockWait: InboxLockWait, ReadWait: InboxReadWait, Manager: "local test",
		Log: slog.New(slog.NewTextHandler(os.Stderr, nil)), Now: time.Now}
	handle := os.Getenv("FILER_HANDLE")
	switch role {
	case "append":
		// Wait at the barrier so every appender starts at once.
		fmt.Println("ready")
		if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
			return err
		}
		n, _ := strconv.Atoi(os.Getenv("FILER_N"))
		proc := os.Getenv("FILER_PROC")
		timeouts := 0
		for i := range n {
			id := fmt.Sprintf("%s-%04d", proc, i)
			l := line(proc, handle, fmt.Sprintf("message %d of %s, padded to tear if it could %0200d", i, proc, i), id)
			res, err := f.Append(handle, []Line{l})
			// Sixteen tight loops on two cores can keep one waiter out past the
			// bound. The refusal promises nothing was appended, so the sender's
			// retry must not be answered Dup.
			for errors.Is(err, ErrLockTimeout) {
				timeouts++
				res, err = f.Append(handle, []Line{l})
			}
			if err != nil {
				return err
			}
			if res[0].Dup {
				return fmt.Errorf("line %s answered Dup: an append refused earlier had filed it", id)
			}
		}
		fmt.Println("timeouts", timeouts)
		return nil
	case "file":
		// One append of a line per id in $FILER_IDS; say how each was answered.
		var lines []Line
		for _, id := range strings.Split(os.Getenv("FILER_IDS"), ",") {
			lines = append(lines, line("client", handle, "filed by another process", id))
		}
		res, err := f.Append(handle, lines)
		if err != nil {
			return err
		}
		fmt.Println("filed", res)
		return nil
	case "partial":
		// Write half of the batch, say so, and stay there until killed.
		writeInbox = func(f *os.File, b []byte) error {
			if _, err := f.Write(b[:len(b)/2]); err != nil {
				return err
			}
			fmt.Println("ready")
			for {
				time.Sleep(time.Hour)
			}
		}
		_, err := f.Append(handle, []Line{line("crasher", handle, "this line is cut in half", os.Getenv("FILER_ID"))})
		return err
	case "hold":
		p, err := h.HandlePath(home.InboxLock, handle)
		if err != nil {
			return err
		}
		// Unlocked when the role ends: kept reachable, so its descriptor is not
		// closed (and the lock dropped) by a finalizer while it is held.
		fl := flock.New(p, flock.SetFlag(os.O_RDWR|os.O_CREATE))
		defer fl.Unlock()
		if ok, err := fl.TryLock(); !ok || err != nil {
			return fmt.Errorf("could not take the lock to hold it (held elsewhere: %v, err %v)", !ok, err)
		}
		fmt.Println("held")
		// Hold until the parent closes stdin or kills us.
		bufio.NewReader(os.Stdin).ReadString('\n')
		return nil
	}
	return fmt.Errorf("unknown role %q", role)
}
