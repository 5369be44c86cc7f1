package wire

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Refusal is a request refused before anything was written, wherever it was
// refused: by this process, by this box's daemon, or by a box across a link. It is
// the one error type for a refusal on every path, so a sentence travels from the
// box that refused to the sender's terminal unchanged. Code is for programs (one of
// the Code constants), Sentence for people (the text after "FAILED -> @h: "), Op
// the request it answered when that is known.
type Refusal struct {
	Op       string
	Code     string
	Sentence string
}

func (r *Refusal) Error() string { return r.Sentence }

// Refuse builds a Refusal.
func Refuse(code, format string, args ...any) *Refusal {
	return &Refusal{Code: code, Sentence: fmt.Sprintf(format, args...)}
}

// RefusalOf is err as a refusal when it is one.
func RefusalOf(err error) (*Refusal, bool) {
	var r *Refusal
	if errors.As(err, &r) {
		return r, true
	}
	return nil, false
}

// AsRefusal is err as the refusal a sender sees: a Refusal keeps its code and
// words, anything else is file_failed with its own words.
func AsRefusal(err error) *Refusal {
	if r, ok := RefusalOf(err); ok {
		return r
	}
	return Refuse(CodeFileFailed, "%v", err)
}

// NoBoxKnows is the protocol's not_here sentence for a handle no box lists. With
// notLinked (boxes that should hold a link to the hub and hold none) it says the
// handle may live on one of them.
func NoBoxKnows(to string, notLinked []string) *Refusal {
	if len(notLinked) > 0 {
		return Refuse(CodeNotHere, "no linked box knows that handle: %s; not linked: %s", to, strings.Join(notLinked, ", "))
	}
	return Refuse(CodeNotHere, "no box knows that handle: %s", to)
}

// NoAnswer is the protocol's sentence for a box that gave no answer within wait.
func NoAnswer(box, to string, wait time.Duration) *Refusal {
	return Refuse(CodeNoAnswer, "the daemon on %s did not answer within %s; @%s may still be filed", box, Seconds(wait), to)
}

// Seconds writes a wait as the protocol does: "3s", "3.5s".
func Seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}
