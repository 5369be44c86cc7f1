package workspace

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/sotcomm/sotd/daemon/internal/rigtest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) { rigtest.RemoveFakeAgent() }))
}
