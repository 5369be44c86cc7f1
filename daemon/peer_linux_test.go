package daemon

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sotcomm/sotd/internal/testutil"
	"github.com/sotcomm/sotd/wire"
)

const peerSocketEnv = "SOTD_TEST_PEER_SOCKET"

// TestPeerOfAnotherUserIsRefused connects from a real process of another OS user
// (nobody). The socket is opened to everyone first, so only the daemon's own
// SO_PEERCRED check stands between that user and the inboxes.
func TestPeerOfAnotherUserIsRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("connecting as another user needs root")
	}
	// Copied before the rig starts anything: a child forked while the copy's
	// write descriptor is open inherits it until its exec, and the helper's
	// exec then fails with ETXTBSY (text file busy).
	bin := testutil.CopyTestBinary(t)
	// No status page: its token file makes run/<host> private again, racing
	// the opening below.
	r := startRig(t, func(d *Daemon) { d.cfg.HTTP = HTTPOff })
	for _, p := range []string{r.home.Dir, filepath.Dir(filepath.Dir(r.sock)), filepath.Dir(r.sock), r.sock} {
		if err := os.Chmod(p, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "-test.run=^TestHelperPeer$")
	cmd.Env = append(os.Environ(), peerSocketEnv+"="+r.sock)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	for _, want := range []string{`"code":"hello_refused"`, "this connection comes from uid 65534", "answer 2: (closed)"} {
		if !strings.Contains(string(out), want) {
			t.Fatalf("the other user's transcript does not hold %q:\n%s", want, out)
		}
	}
	if !r.logs.Contains("hello refused") {
		t.Errorf("the refusal was not logged:\n%s", r.logs.String())
	}
}

// TestHelperPeer says hello on the socket the parent names and prints what the
// daemon answers.
func TestHelperPeer(t *testing.T) {
	sock := os.Getenv(peerSocketEnv)
	if sock == "" {
		t.Skip("a helper process for TestPeerOfAnotherUserIsRefused")
	}
	nc, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	fmt.Fprint(nc, helloFrame("", wire.Protocol))
	br := bufio.NewReader(nc)
	for i := 1; i <= 2; i++ {
		line, err := br.ReadString('\n')
		if err != nil && line == "" {
			fmt.Printf("answer %d: (closed)\n", i)
			return
		}
		fmt.Printf("answer %d: %s", i, line)
	}
}
