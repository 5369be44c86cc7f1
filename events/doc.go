// Package events is the daemon's change feed: one Bus that every publisher
// stamps with a sequence number and every frontend subscription reads from.
//
// A subscription starts with a snapshot consistent with a sequence number, then
// the live events after it, in order. A subscriber is never given an unbounded
// queue and never a silent gap: one that falls behind its bounded buffer loses
// what was buffered and is handed one stream_resync event and a fresh snapshot.
// Events are a change feed; the snapshot and the query ops are the truth.
package events
