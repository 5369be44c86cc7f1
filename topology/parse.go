package topology

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode"

	"github.com/BurntSushi/toml"
)

// maxFile bounds what Load reads: a hosts.toml is a few hundred bytes, and a
// path that names something else (a log) should fail, not stall the daemon.
const maxFile = 1 << 20

// Load reads and validates the hosts.toml at path. A missing file is an error
// that errors.Is(err, fs.ErrNotExist) matches, which RoleOf reads as "no
// topology". Findings in the file are *Problem values naming path and line.
func Load(path string) (*Topology, []Warning, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read hosts.toml: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, nil, fmt.Errorf("read hosts.toml %s: %w", path, err)
	}
	if len(data) > maxFile {
		return nil, nil, &Problem{File: path, Msg: fmt.Sprintf("is over %d bytes, so it is not a hosts.toml; point $%s at the right file", maxFile, EnvHosts)}
	}
	return parse(path, data)
}

// Parse validates hosts.toml's text; its findings name the file "hosts.toml".
func Parse(data []byte) (*Topology, []Warning, error) {
	return parse("hosts.toml", data)
}

func parse(file string, data []byte) (*Topology, []Warning, error) {
	var top map[string]toml.Primitive
	md, err := toml.Decode(string(data), &top)
	if err != nil {
		return nil, nil, syntaxProblem(file, err)
	}
	r := reader{md: &md, keyLines: map[[2]string]int{}}
	t := r.topology(top)
	if len(r.errs) == 0 {
		// Only a file whose every value has the right type is judged as a whole,
		// so one mistake is not reported again as its consequences.
		check(t, r.at(t), &r.problems)
	}
	warns, err := r.result(file)
	if err != nil {
		return nil, warns, err
	}
	return t, warns, nil
}

func syntaxProblem(file string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return &Problem{File: file, Line: pe.Position.Line, Msg: "not valid TOML: " + oneLine(pe.Message)}
	}
	return &Problem{File: file, Msg: "not valid TOML: " + oneLine(strings.TrimPrefix(err.Error(), "toml: "))}
}

// oneLine escapes control characters, which toml quotes raw from the input,
// so each finding stays one line.
func oneLine(s string) string {
	var b strings.Builder
	for _, c := range s {
		if unicode.IsControl(c) {
			q := strconv.QuoteRune(c)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}
