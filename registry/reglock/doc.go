// Package reglock is the registry lock: the file .registry.lock in the comm home,
// whose one line names its holder (name:machine:boot:pidns:pid:start), made by
// link(2) of a temp file that already holds that line, so the lock never exists
// without its holder and a take never replaces anything.
//
// A holder is never forced by a timeout. A waiter removes a lock only when it
// proves the holder dead from the holder's own machine, on a mount whose reads
// are fresh, and then only through a reclaim marker (.registry.lock.reclaim.<D>)
// that makes it the one process acting for that dead holder; it settles 1 s,
// reads the lock again and removes it only if it still names the dead holder.
// Everything else fails closed at the deadline with one sentence that names the
// holder and the recovery, as the protocol's "The registry lock" section words it.
//
// Within one process a per-path turn lets one goroutine at a time inside the
// lock: the process's goroutines share one record, so without the turn a lock or
// marker one of them left would read as live to all of them.
package reglock
