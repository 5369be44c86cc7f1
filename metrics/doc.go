// Package metrics holds the daemon's Prometheus collectors, every name under
// sotd_, and the small functions the filer, link and wake code call to move
// them. Each call is one atomic update (plus a label lookup for the labelled
// ones), cheap enough for the filing path. The collectors live in a registry of
// their own, served by Handler, so nothing else in the process can add to or
// clash with them.
package metrics
