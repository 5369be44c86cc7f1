// Package doctor is `sotd doctor`: it looks at one box's comm home from the
// outside and says, check by check, what is right, what is doubtful and what is
// broken, each broken thing with the sentence that fixes it. It only reads: it
// takes no lock, makes no key and repairs nothing, so it is safe to run while
// daemons and sessions work on the home.
//
// Link status and clock skew against the hub live in the daemon's link state,
// which no outside look can read, so doctor does not judge them; it checks this
// box's clock against the stamps other boxes wrote in the registry instead.
package doctor
