// Package page is the status page's model: the picture of this box's agents,
// rows, links and the other boxes that the web server serves, kept current by
// a watch over the registry, the rows, the inboxes and the network view, and
// published change by change on an event bus. It reads the daemon through
// Source only.
package page
