// Package crashfs is a file system for crash-consistency tests: it keeps what a
// disk keeps across a power loss and forgets the rest when a test says so.
//
// A process killed with SIGKILL loses nothing the kernel already holds, so a kill
// cannot show a missing fsync; a power loss can. crashfs models one, as the
// durability tests of LazyFS, ALICE and the SQLite and PostgreSQL suites do. It
// holds every file and folder in memory twice over: the live state every
// operation reads and writes, and the durable state a disk would hold.
//
//   - A file's bytes become durable when the file is fsynced (fsync or
//     fdatasync, through any descriptor): written but unsynced bytes, and a
//     truncation, are lost at a crash.
//   - A folder's entries (names created, renamed, linked or removed in it)
//     become durable when the folder itself is fsynced. POSIX says so in
//     fsync(2): "Calling fsync() does not necessarily ensure that the entry in
//     the directory containing the file has also reached disk. For that an
//     explicit fsync() on a file descriptor for the directory is also needed."
//     A rename over an existing name whose folder was not synced leaves the old
//     file there after a crash; a folder made but never synced into its parent
//     is gone, with all it held.
//
// Strict mode is exactly that. Lenient mode also makes a file's current names
// durable, with the folders that hold them, when the file is synced: roughly
// what ext4 does for a new file, whose create is committed with the file's
// fsync. File systems that promise less (NFS among them) are closer to strict.
//
// Crash drops everything volatile and serves the durable state: the test kills
// every process using the mount first, as a power loss would stop them. With a
// random source, Crash also keeps a random prefix of each file's unsynced tail
// when the file only grew since its last fsync, since a disk may have written
// part of what was not synced: a torn append.
//
// Modes, owners and times are not modelled (they keep their live values); the
// file system has no symlinks, special files or extended attributes. It serves
// on Linux, where a test mounts it through /dev/fuse (Mount skips the test where
// it cannot).
package crashfs
