// Package chromium drives a headless Chromium over the DevTools protocol, so the
// status page's tests read its DOM as a person's browser renders it. Only tests
// import it; it runs where Chromium's process group can be killed (linux, darwin).
package chromium
