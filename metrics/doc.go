// Package metrics holds the daemon's metrics, every name under sotd_, the small
// functions the daemon, link and wake code call to move them, and Handler, which
// serves them in the Prometheus text format.
//
// It writes that format itself rather than use the Prometheus client library:
// every client verb runs in this same binary, and that library's package init
// (its default registry with the Go and process collectors, procfs's regular
// expressions, protobuf's descriptors) cost each whole-process `sotd send` about
// a millisecond before main. Here every metric is a package variable the linker
// lays out, so nothing runs at init, and each call is one atomic update (plus a
// label lookup for the labelled ones), cheap enough for the filing path.
package metrics
