//go:build race

package raceexit

import "os"

func init() {
	if quick() {
		return
	}
	os.Setenv("GORACE", setting())
	restart()
}
