// Package bench times sotd beside another system in the same run on the same
// machine. It is a module of its own so that what it compares against (a NATS
// JetStream server and its client) is in no go.sum the product ships.
//
//	cd bench && go test -run='^$' -bench=BesideJetStream -benchtime=4000x .
package bench
