package ancestry

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/sotcomm/sotd/machine"
)

// OSTable is a toolhelp snapshot of this box's processes, taken now: each walk
// takes its own.
func OSTable() (Table, error) {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: snapshot the process table: %w", ErrUnreadable, err)
	}
	defer windows.CloseHandle(snap)
	t := snapshot{}
	e := windows.ProcessEntry32{Size: uint32(unsafe.Sizeof(windows.ProcessEntry32{}))}
	for err = windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		t[int(e.ProcessID)] = entry{ppid: int(e.ParentProcessID), name: windows.UTF16ToString(e.ExeFile[:])}
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return nil, fmt.Errorf("%w: read the process snapshot: %w", ErrUnreadable, err)
	}
	return t, nil
}

type entry struct {
	ppid int
	name string // the program file's name, without its folder
}

type snapshot map[int]entry

// Proc reads pid's times, program file and command line from the process
// itself. One that cannot be opened (a sandboxed agent's child may be unable to
// open its parent even under the same account) ends a walk as the top.
func (t snapshot) Proc(pid int) (Proc, error) {
	e, ok := t[pid]
	if !ok {
		return Proc{}, fmt.Errorf("%w: process %d is not in the snapshot", ErrEnded, pid)
	}
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return Proc{}, fmt.Errorf("%w: open process %d: %w", ErrEnded, pid, err)
	}
	defer windows.CloseHandle(h)
	p := Proc{PID: pid, PPID: e.ppid, Start: machine.Unknown, Exe: imageName(h)}
	var created, exited, kernel, user windows.Filetime
	if windows.GetProcessTimes(h, &created, &exited, &kernel, &user) == nil {
		p.Start = strconv.FormatUint(uint64(created.HighDateTime)<<32|uint64(created.LowDateTime), 10)
	}
	if line, err := commandLine(h); err == nil && line != "" {
		p.Argv = splitCommandLine(line)
	} else {
		p.Argv, p.ArgsUnknown = []string{e.name}, true
	}
	return p, nil
}

func imageName(h windows.Handle) string {
	buf := make([]uint16, windows.MAX_LONG_PATH)
	n := uint32(len(buf))
	if windows.QueryFullProcessImageName(h, 0, &buf[0], &n) != nil {
		return ""
	}
	return string(utf16.Decode(buf[:n]))
}

// maxCommandLine is the longest command line Windows allows, in bytes, plus
// the string header NtQueryInformationProcess writes before it.
const maxCommandLine = 32767*2 + int(unsafe.Sizeof(windows.NTUnicodeString{}))

// commandLine reads h's command line; an unpaired surrogate in it reads as
// U+FFFD.
func commandLine(h windows.Handle) (string, error) {
	// Words, not bytes, so the header's pointer is aligned.
	buf := make([]uintptr, maxCommandLine/int(unsafe.Sizeof(uintptr(0)))+1)
	size := uint32(len(buf)) * uint32(unsafe.Sizeof(uintptr(0)))
	var n uint32
	if err := windows.NtQueryInformationProcess(h, windows.ProcessCommandLineInformation, unsafe.Pointer(&buf[0]), size, &n); err != nil {
		return "", err
	}
	us := (*windows.NTUnicodeString)(unsafe.Pointer(&buf[0]))
	if us.Buffer == nil || us.Length == 0 {
		return "", nil
	}
	return string(utf16.Decode(unsafe.Slice(us.Buffer, us.Length/2))), nil
}
