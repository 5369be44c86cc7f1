package integration

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/sotcomm/sotd/client"
	"github.com/sotcomm/sotd/home"
	"github.com/sotcomm/sotd/mail"
	"github.com/sotcomm/sotd/wire"
)

// helperEnv makes the test binary a sender process: "direct" files through the
// client's own route-1 append, "daemon" hands each line to the daemon as comm.file.
const helperEnv = "SOTD_IT_HELPER"

// helperEnvs is what a sender process needs beyond the box's environment.
func helperEnvs(route, from, to string, n int) []string {
	return []string{helperEnv + "=" + route, "SOTD_IT_FROM=" + from, "SOTD_IT_TO=" + to, "SOTD_IT_N=" + strconv.Itoa(n)}
}

// reportEnv makes a sender print "filed <i>" as each line i is answered filed, so
// a test that kills it knows which answers it had.
const reportEnv = "SOTD_IT_REPORT=1"

// reportFiled prints line i's answer when the test asked for each.
func reportFiled(i int) {
	if os.Getenv("SOTD_IT_REPORT") != "" {
		fmt.Printf("filed %d\n", i)
	}
}

// senderText is message i of from, padded so a torn line cannot pass for a whole one.
func senderText(from string, i int) string {
	return fmt.Sprintf("%s #%d %s", from, i, strings.Repeat("x", 40+i%200))
}

func runHelper() int {
	from, to := os.Getenv("SOTD_IT_FROM"), os.Getenv("SOTD_IT_TO")
	n, _ := strconv.Atoi(os.Getenv("SOTD_IT_N"))
	var err error
	switch os.Getenv(helperEnv) {
	case "direct":
		err = sendDirect(from, to, n)
	case "daemon":
		err = sendViaDaemon(from, to, n)
	case "session":
		err = runSession()
	default:
		err = fmt.Errorf("unknown helper %q", os.Getenv(helperEnv))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// lockHeld is the sentence of a send refused because the inbox lock stayed held:
// nothing was appended, so the sender may retry. flock has no queue, and sixteen
// senders in tight loops on a loaded machine can keep one out past the wait.
const lockHeld = "was held for"

// maxTries bounds a sender's retries of a refused line.
const maxTries = 20

// sendDirect runs the client's send, the same code `sotd send` runs, retrying a
// line only when the answer says nothing was appended.
func sendDirect(from, to string, n int) error {
	var out strings.Builder
	s, err := client.NewSession(&out, io.Discard)
	if err != nil {
		return err
	}
	retries := 0
	for i := 0; i < n; i++ {
		for try := 1; ; try++ {
			out.Reset()
			code := s.Send(client.SendArgs{To: to, Text: senderText(from, i)})
			if code != 0 && strings.Contains(out.String(), lockHeld) && try < maxTries {
				retries++
				continue
			}
			if code != 0 {
				return fmt.Errorf("send %d: exit %d: %s", i, code, out.String())
			}
			break
		}
		if got := out.String(); got != "  filed -> @"+to+"\n" {
			return fmt.Errorf("send %d printed %q, want its own append's indented filed line", i, got)
		}
		reportFiled(i)
	}
	fmt.Printf("retries=%d\n", retries)
	return nil
}

// sendViaDaemon is route 2's client half: one connection, one comm.file per line.
func sendViaDaemon(from, to string, n int) error {
	h, err := home.Resolve()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := wire.Dial(ctx, h.Socket(home.SelfHost()), wire.Hello{Role: wire.RoleCLI, Host: home.SelfHost(), Name: from, Protocol: wire.Protocol})
	if err != nil {
		return err
	}
	defer c.Close()
	retries := 0
	for i := 0; i < n; i++ {
		// A retry keeps the message id, as a real client's does.
		req := wire.CommFile{From: from, To: to, Text: senderText(from, i), ID: mail.NewID()}
		for try := 1; ; try++ {
			var res wire.CommFiled
			err := c.Call(ctx, wire.OpCommFile, req, &res)
			if err != nil && strings.Contains(err.Error(), lockHeld) && try < maxTries {
				retries++
				continue
			}
			if err != nil {
				return fmt.Errorf("comm.file %d: %w", i, err)
			}
			if !res.OK || res.Dup {
				return fmt.Errorf("comm.file %d answered %+v", i, res)
			}
			break
		}
		reportFiled(i)
	}
	fmt.Printf("retries=%d\n", retries)
	return nil
}
