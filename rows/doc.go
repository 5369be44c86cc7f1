// Package rows runs the agents a daemon owns, each in a terminal of its own (a
// "row"), and lets the daemon read what a row shows and type into it.
//
// Two backends do the same job:
//
//   - Tmux: one session per row on a private tmux server (3.2 or later) whose
//     socket lives in the home (run/<host>/tmux/rows.sock, in a 0700 folder),
//     each window fixed at the Spec's size, else Options.Cols x Rows (120x40). The tmux server owns
//     the agents, so rows outlive the daemon: a restarted daemon calls Discover
//     and finds them again, with the Spec each was started with (kept as JSON
//     in the session's @sot_spec option; a session without one is a person's,
//     not a row). sotd attach runs tmux -S <Socket()> attach -t =<row id>.
//     Each row also has a read-only tmux control-mode client of the daemon's
//     attached (tmux_watch.go), whose %output lines say since when the row
//     has written nothing, so its Screen can say when its rows last changed.
//   - PTY: the daemon process owns each agent through a pseudo-terminal
//     (creack/pty on Unix, ConPTY on Windows) and feeds its output to a VT
//     emulator (charmbracelet/x/vt). These rows end with the daemon: Close
//     stops them, and a restarted daemon finds none. A person's terminal
//     attaches through the daemon (PTY.Attach): the screen as it is, then the
//     program's output as it comes.
//
// Choose picks tmux where it exists (not on Windows) and the PTY elsewhere.
// Both read a screen the same way, through the emulator (tmux's capture is
// replayed into one), so a Dim cell or a wide character means the same thing
// whichever backend drew it.
//
// A row's life, as Phase names it:
//
//	Starting  the process was started, has drawn nothing yet, and is under
//	          StartingFor (1 s) old on the Options clock
//	Ready     the process runs: it has drawn something, or StartingFor passed
//	Ending    Stop is signalling the process group and waiting for it to go
//	Stopped   the process exited (on its own or by Stop); the row stays, with
//	          its last screen, and has not ended: it still holds its handle
//	Terminal  the row was removed (Remove, the daemon's despawn); latched for
//	          the rest of the backend's run, and it holds nothing any more
//
// Every row's environment carries SOT_WORKSPACE_ID=<row id> and, when the row
// has a handle, SOT_COMM_NAME=<handle>; neither is ever taken from the spec's
// Env or from the daemon's own environment. Input types bytes as a person
// would (tmux takes UTF-8 text and control keys only). Writes to one row are
// serialized, so two callers never interleave their keys inside one prompt.
package rows
