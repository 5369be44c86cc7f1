package workspace

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/sotcomm/sotd/daemon/internal/rigtest"
	"github.com/sotcomm/sotd/internal/testutil"
)

func TestMain(m *testing.M) {
	testutil.QuickRaceExit()
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) { rigtest.RemoveFakeAgent() }))
}
