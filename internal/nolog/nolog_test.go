package nolog

import (
	"bytes"
	"context"
	"log/slog"
	"testing"

	_ "github.com/sotcomm/sotd/internal/raceexit" // exits without the race detector's second of sleep
)

func TestOr(t *testing.T) {
	var buf bytes.Buffer
	own := slog.New(slog.NewTextHandler(&buf, nil))
	if Or(own) != own {
		t.Fatal("Or replaced the logger it was given")
	}
	if Or(nil).Enabled(context.Background(), slog.LevelError) {
		t.Fatal("Or(nil) keeps lines; want every line discarded")
	}
}
