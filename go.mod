module github.com/sotcomm/sotd

go 1.26.0

require (
	github.com/gofrs/flock v0.13.2
	github.com/rogpeppe/go-internal v1.16.0
	go.uber.org/goleak v1.3.0
	golang.org/x/sys v0.50.0
)

require golang.org/x/tools v0.26.0 // indirect
