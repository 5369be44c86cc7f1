// Package hub is the hub's half of routing a line between boxes: the decisions,
// not the transport (package link) nor the filing (the daemon's batcher).
//
// The hub files for its own comm folder when its folder lists the handle and a
// live session holds it. Anything else it offers, marked forwarded, to the boxes
// linked to it, and answers with theirs:
//
//   - directory first: each linked box tells the hub which handles it holds, so
//     the body goes only to the one box that holds the handle, and that box's
//     answer is the answer (a handle has one holder: see Router);
//   - when no directory names the handle: every box that made no Ticks
//     promise at once, the body encoded once for every box; a ticking box is
//     not offered it: the hub waits (Config.TickWait, within three quarters
//     of Config.Wait) for its next directory event after the request arrived
//     and after its full set, which names the handle if it took it meanwhile
//     (then that box alone is offered the line), and offers it to a ticking
//     box only once that wait is over without its event. A handle every box
//     answered not_here for, or ticked without, is answered so without an
//     offer for UnheldFor after, until a link comes up or a directory changes
//     (a negative cache);
//   - an ok counts only from a box whose directory names the handle, by the
//     time it came or within Config.Wait after (an honest box that files a
//     line tells its directory on its next poll): an ok from a box that never
//     claims the handle, or whose claim is refused, is not_here, so no box
//     takes a line for a handle it does not hold by saying it filed it;
//   - the verdict is the first ok; else, when a box gave no answer in time, "the
//     daemon on <box> did not answer within <n>s; @<h> may still be filed" (it
//     may have filed the line); else the first refusal that is not not_here, in
//     that box's own words; else "no box knows that handle: <h>", or "no linked
//     box knows that handle: <h>; not linked: <boxes>" when a box that should
//     hold a link holds none.
//
// An offer to a holder goes by its link's File, which gathers the comm.file
// requests made at once for one box into one comm.file.batch frame, each
// answered on its own; so a burst from one guest to another crosses the hub
// in a few frames and is filed on the holder in one group commit.
//
// Every offer is bounded: one request's offers share one deadline (the inbox
// lock wait plus 1 s, Config.Wait), and at most MaxOffers offers are in flight
// at once to each box, so a burst to unknown handles cannot put hundreds of
// requests on a box's link, and a box that stops answering holds only its own
// slots. An offer to every box takes no goroutine per box: each goes out by its
// link's Go, and one wait takes the answers as they come.
package hub
