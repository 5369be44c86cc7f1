// Package ancestry is the agent-layer check: whether a process may act as a
// comm handle, judged by the processes above it.
//
// The protocol gives a comm identity to a session, not to everything a session
// starts. Another agent started inside a session (claude -p, codex exec), and
// anything it starts, has none: a process acts as a handle only when at most one
// agent (claude or codex) lies between it and its row's runner, or the top of its
// process tree outside a row. A node process is an agent when one of its
// arguments names one or lies in its npm package, and it counts once with its
// native child only when that child is its direct child and the child's
// arguments after the binary equal the host's after its script.
//
// A row's runner is the process the daemon's rows backend started for the row:
// the tmux pane's process (the agent, once the pane's sh has exec'd it) or the
// built-in PTY's child. It plays the protocol's capsule. The daemon records each
// runner as run/<host>/runners/<row id> (RecordRunner): its pid, its start and
// the boot and pid namespace they belong to, so a runner is recognized by pid and
// start together and a reused pid never passes for one. An environment variable
// could not serve: every descendant inherits it and any process can export it.
//
// The walk reads every ancestor's full command line. An ancestry it cannot read
// in full (a walk past MaxWalk processes, an unreadable process record, a node
// host whose arguments cannot be read) is refused, not trusted. A process that
// names a row passes only when its walk reaches that row's runner; ending at the
// top (it was reparented away, or was never inside the row) or at another row's
// runner refuses it. Only a process that names no row may end its walk at the
// top.
//
// Each OS reads its own table: Linux /proc, macOS the kern.proc.pid and
// kern.procargs2 sysctls, Windows a toolhelp snapshot with each command line
// read from the process and split as the Microsoft C runtime splits it. Where a
// command line cannot be read (another account's process on macOS or Windows) it
// is recorded as the program name with arguments unknown, which equals nothing.
package ancestry
