// Package wire is every connection's language: NDJSON envelopes
// {"v","id","kind","op","payload"}, one per line, at most MaxFrame bytes, and the
// payload of each op. A frame that is too long, cut short, not JSON or wrong-typed
// is an error that names what was wrong; nothing in it is acted on.
package wire
