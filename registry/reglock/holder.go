package reglock

import (
	"strconv"
	"strings"

	"github.com/sotcomm/sotd/machine"
)

// Holder is one record of the lock or of a reclaim marker:
// name:machine:boot:pidns:pid:start. A field that cannot be read is "-".
type Holder struct {
	Name, Machine, Boot, PIDNS string
	PID                        int
	Start                      string
}

// ParseHolder reads a record line. ok is false for anything that is not six
// colon fields with a decimal pid; a lock holding such a line is removed only by
// hand. An empty field reads as "-".
func ParseHolder(line string) (h Holder, ok bool) {
	f := strings.Split(line, ":")
	if len(f) != 6 || strings.ContainsAny(line, "\r\n") || !decimal(f[4]) {
		return Holder{}, false
	}
	pid, err := strconv.Atoi(f[4])
	if err != nil {
		return Holder{}, false
	}
	for i, s := range f {
		if s == "" {
			f[i] = machine.Unknown
		}
	}
	return Holder{Name: f[0], Machine: f[1], Boot: f[2], PIDNS: f[3], PID: pid, Start: f[5]}, true
}

// String is the record line. A ':' or line break inside a field is written '_'
// and an empty field "-", so the line always parses back to six fields.
func (h Holder) String() string {
	return strings.Join([]string{field(h.Name), field(h.Machine), field(h.Boot), field(h.PIDNS), strconv.Itoa(h.PID), field(h.Start)}, ":")
}

// proofless reports a record no box can prove dead: every proof field is "-".
func (h Holder) proofless() bool {
	for _, f := range []string{h.Machine, h.Boot, h.PIDNS, h.Start} {
		if f != machine.Unknown {
			return false
		}
	}
	return true
}

func field(s string) string {
	if s == "" {
		return machine.Unknown
	}
	return strings.NewReplacer(":", "_", "\n", "_", "\r", "_").Replace(s)
}

func decimal(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// hostField is the record's name field: the host name with every byte outside
// [A-Za-z0-9._-] written '_', so the record keeps six fields and the file names
// built from it stay one path element.
func hostField(host string) string {
	b := []byte(host)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return machine.Unknown
	}
	return string(b)
}

// record is a line as read from disk, kept byte for byte: the walk compares
// lines, never parsed fields, so two spellings of one holder never match.
type record struct {
	line string
	Holder
}
