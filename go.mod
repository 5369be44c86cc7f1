module github.com/sotcomm/sotd

go 1.26.0

require (
	github.com/gofrs/flock v0.13.2 // indirect
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	golang.org/x/sync v0.25.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	pgregory.net/rapid v1.3.0 // indirect
)
