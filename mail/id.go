package mail

import (
	"crypto/rand"
	"encoding/binary"
	"strings"
	"sync"
	"time"
	"unicode"
)

// crockford is Crockford's base32: sortable as text, no ambiguous letters.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

var idMu sync.Mutex
var lastMs uint64
var lastRand [10]byte

// NewID makes a message id: 48 bits of Unix milliseconds then 80 random bits, 26
// characters that sort by time (within one process, strictly: the random part is
// incremented when the millisecond repeats). A sender makes it once and keeps it
// across retries; the filer refuses to file an id twice.
func NewID() string { return newID(time.Now()) }

func newID(now time.Time) string {
	idMu.Lock()
	ms := uint64(now.UnixMilli())
	if ms <= lastMs {
		ms = lastMs
		for i := len(lastRand) - 1; i >= 0; i-- {
			lastRand[i]++
			if lastRand[i] != 0 {
				break
			}
		}
	} else {
		lastMs = ms
		if _, err := rand.Read(lastRand[:]); err != nil {
			panic("crypto/rand failed: " + err.Error())
		}
	}
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], ms<<16)
	copy(b[6:], lastRand[:])
	idMu.Unlock()
	return encode(b)
}

// encode writes 128 bits as 26 base32 digits, most significant first.
func encode(b [16]byte) string {
	hi := binary.BigEndian.Uint64(b[:8])
	lo := binary.BigEndian.Uint64(b[8:])
	var out [26]byte
	for i := 25; i >= 0; i-- {
		out[i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(out[:])
}

// ShortLen is how many characters of a message id poll and log show.
const ShortLen = 8

// ShortID is id as poll and log show it, for a reply to name (sotd send
// --reply-to): its last ShortLen characters. Those of an id NewID makes are
// random, where its first ten are the time every id of that millisecond
// shares, so two lines of one inbox share a short id by a 1-in-2^40 chance per
// pair; one derived from the id alone reads the same in every transcript. An
// id of ShortLen characters or fewer, another client's, is shown whole.
func ShortID(id string) string {
	if len(id) <= ShortLen {
		return id
	}
	return id[len(id)-ShortLen:]
}

// IsID reports whether s is an id as NewID makes them, in either case: 26 of
// Crockford's base32 digits. Such an id names one line wherever it is filed.
func IsID(s string) bool {
	if len(s) != 26 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune(crockford, unicode.ToUpper(rune(s[i]))) {
			return false
		}
	}
	return true
}

// NamesID reports whether ref, a full id or a short one as poll shows it, in
// either case, names the line whose id is id.
func NamesID(ref, id string) bool {
	return id != "" && (strings.EqualFold(ref, id) || strings.EqualFold(ref, ShortID(id)))
}
