// Package home is the comm home: where it is, what lives in it, and the modes every
// entry is created with. Every path built from a handle comes from HandlePath, so a
// name that could escape the home (a "/", "..", NUL, a control character) never
// reaches the file system.
package home
