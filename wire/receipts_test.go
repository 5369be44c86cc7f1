package wire

import (
	"fmt"
	"testing"
)

func TestPerReceiver(t *testing.T) {
	for _, tc := range []struct{ max, want int }{
		{0, ReceiptsDefault}, {-3, ReceiptsDefault}, {1, 1}, {ReceiptsMax, ReceiptsMax}, {ReceiptsMax + 1, ReceiptsMax},
	} {
		t.Run(fmt.Sprint(tc.max), func(t *testing.T) {
			if got := (CommReceipts{Max: tc.max}).PerReceiver(); got != tc.want {
				t.Fatalf("PerReceiver of max %d = %d, want %d", tc.max, got, tc.want)
			}
		})
	}
}
