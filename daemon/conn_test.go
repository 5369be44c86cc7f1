package daemon

import (
	"encoding/json"
	"testing"

	"github.com/sotcomm/sotd/wire"
)

// A request that waits on a held inbox lock delays no other answer on its
// connection: not when it came to a worker that had answered before, nor for
// the requests read after it, which the connection's other workers answer.
func TestASlowRequestDelaysNoOtherAnswer(t *testing.T) {
	t.Setenv("SOT_INBOX_LOCK_WAIT_SECS", "5")
	r := startRig(t)
	c := r.admitted(t, wire.RoleFE)
	answered := func(id uint64) wire.Envelope {
		t.Helper()
		env, closed := c.next()
		if closed || env.ID != id {
			t.Fatalf("got %+v, closed %v; want the answer to request %d", env, closed, id)
		}
		return env
	}
	// A worker answers and waits for the next request, which is the slow one.
	c.send(frame(2, wire.OpRegistryList, `{}`))
	answered(2)
	release := holdInboxLock(t, r.home, "bob")
	defer release()
	req, _ := json.Marshal(wireReq("bob"))
	c.send(frame(3, wire.OpCommFile, string(req)))
	waitFor(t, "the request to reach the filer", func() bool { return r.logs.Contains("filing a batch") })
	for id := 4; id < 8; id++ {
		c.send(frame(id, wire.OpRegistryList, `{}`))
		answered(uint64(id))
	}
	release()
	var filed wire.CommFiled
	if err := json.Unmarshal(answered(3).Payload, &filed); err != nil || !filed.OK {
		t.Fatalf("the slow request's answer: %+v, %v; want it filed", filed, err)
	}
}
