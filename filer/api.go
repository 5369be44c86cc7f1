// Package filer: inboxes. (STUB: the filer helper replaces this file; signatures
// are the contract.)
package filer

import (
	"errors"
	"time"

	"github.com/sotcomm/sotd/home"
)

// Line is one inbox frame.
type Line struct {
	From string `json:"from"`
	To   string `json:"to"`
	Repo string `json:"repo"`
	Msg  string `json:"msg"`
	TS   string `json:"ts"`
	ID   string `json:"id,omitempty"`
}

// Result of one line of an Append.
type Result struct {
	Dup bool // the inbox already held this id; nothing was appended for it
}

// ErrLockTimeout: the inbox lock was held past LockWait; nothing was appended.
var ErrLockTimeout = errors.New("inbox lock held")

// ErrBusy: a reader's shared lock was held past ReadWait; try again (poll exits 75).
var ErrBusy = errors.New("inbox busy")

// Filer files into and reads from the inboxes of one home.
type Filer struct {
	Home     home.Home
	LockWait time.Duration
	ReadWait time.Duration
}

// New makes a filer for h with the environment's waits.
func New(h home.Home) *Filer { return &Filer{Home: h} }

// Append files lines (all To the same handle) under one lock and one fsync.
func (f *Filer) Append(handle string, lines []Line) ([]Result, error) {
	return nil, errors.New("stub")
}
