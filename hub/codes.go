package hub

import (
	"errors"
	"strconv"
	"time"

	"github.com/sotcomm/sotd/mail"
	"github.com/sotcomm/sotd/wire"
)

// Codes of the refusals routing adds to the wire's.
const (
	// CodeNoAnswer: a box, or the hub, gave no answer in time; the line may
	// still have been filed, and a retry with the same id files it at most once.
	CodeNoAnswer = "no_answer"
	// CodeNotLinked: a guest holds no link to its hub, so nothing was forwarded.
	CodeNotLinked = "not_linked"
)

// RefusalOf is err as a refusal when it is one: the daemon's own
// (*mail.Refusal) or a box's, carried over a link (*wire.RemoteError).
func RefusalOf(err error) (*mail.Refusal, bool) {
	var r *mail.Refusal
	if errors.As(err, &r) {
		return r, true
	}
	var re *wire.RemoteError
	if errors.As(err, &re) {
		return &mail.Refusal{Code: re.Code, Sentence: re.Sentence}, true
	}
	return nil, false
}

// NoAnswer is the protocol's sentence for a box that gave no answer within wait.
func NoAnswer(box, to string, wait time.Duration) *mail.Refusal {
	return mail.Refuse(CodeNoAnswer, "the daemon on %s did not answer within %s; @%s may still be filed", box, Seconds(wait), to)
}

// Seconds writes a wait as the protocol does: "3s", "3.5s".
func Seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}
