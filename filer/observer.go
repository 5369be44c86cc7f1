package filer

import "time"

// Observer is told what filing cost: the daemon passes one that moves its
// metrics. The filer does not import them itself, so a client that appends
// through it builds no metric and pays for none.
type Observer interface {
	LockWait(time.Duration) // an inbox flock was got after this long
	Fsync(time.Duration)    // one inbox fsync took this long
	Filed(lines int)        // an append made this many lines durable (never 0)
}

func (f *Filer) lockWaited(d time.Duration) {
	if f.Observer != nil {
		f.Observer.LockWait(d)
	}
}

func (f *Filer) fsynced(d time.Duration) {
	if f.Observer != nil {
		f.Observer.Fsync(d)
	}
}

func (f *Filer) filed(lines int) {
	if f.Observer != nil && lines > 0 {
		f.Observer.Filed(lines)
	}
}
