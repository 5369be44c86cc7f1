// Package filer keeps the inboxes: one append-only JSONL file per handle,
// inbox/<handle>.jsonl, written under the kernel's file lock on inbox/<handle>.lock.
//
// "Filed" means kept. Append answers only after the line is on disk: it takes the
// inbox lock, opens the inbox inside it, cuts a dead writer's unterminated last line
// back to the last newline (and logs it), writes every new line of the batch in one
// write, fsyncs once, closes the inbox and only then lets the lock go. A failed write
// or fsync is cut back to the length before it, so a failed append leaves nothing. A
// line whose message id the inbox already holds is answered Dup and not written
// again, so a sender's retry after a lost answer never duplicates a line. A Filer
// keeps the ids of each inbox's last DedupeTail bytes between its appends and reads
// only the bytes added since, so the daemon's long-lived Filer does not read the
// whole window again for every batch.
//
// Readers count only newline-terminated lines. The read cursor read/<handle>.cursor
// is the protocol's `<count> <crc>-<len>`: lines shown and the POSIX cksum of the
// last one. A reader whose last line no longer hashes so (a cut-back removed it)
// steps back one line and says so, so a line can be shown twice but never lost.
// Beside the cursor the filer keeps read/<handle>.offset, the byte offset of that
// line's end, so a poll of a large inbox reads the new bytes, not the whole file,
// and a cursor that no longer parses is recovered from it (and rewritten) rather
// than showing the whole inbox again, when the inbox still bears it out.
//
// Which writers a lock excludes depends on the lock manager behind the inbox's
// mount; the hub records its own in inbox-lock-manager (see ComputeManager,
// EnsureRecord and Matches), and only a box whose manager matches that record
// appends here itself.
package filer
