package web

import (
	_ "embed"
	"net/http"
)

//go:embed status.html
var statusPage []byte

func servePage(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	// The token is in the page's URL; keep it out of any Referer.
	h.Set("Referrer-Policy", "no-referrer")
	w.Write(statusPage)
}
