package network

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/sotcomm/sotd/internal/testutil"
)

func TestMain(m *testing.M) {
	testutil.QuickRaceExit()
	goleak.VerifyTestMain(m)
}
