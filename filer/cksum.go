package filer

import (
	"bytes"
	"strconv"
	"sync"
)

// cksumTable is CRC-32 with polynomial 0x04C11DB7, most significant bit first, as
// POSIX cksum(1) defines it; built on first use, not at package init, which
// every verb would pay for.
var cksumTable = sync.OnceValue(func() *[256]uint32 {
	var t [256]uint32
	for i := range t {
		c := uint32(i) << 24
		for range 8 {
			if c&0x80000000 != 0 {
				c = c<<1 ^ 0x04C11DB7
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return &t
})

// Cksum is POSIX cksum(1) of b: the CRC of the bytes, then of the length in as
// few bytes as hold it, least significant first, complemented; and the length.
func Cksum(b []byte) (crc uint32, n int64) {
	table := cksumTable()
	for _, c := range b {
		crc = crc<<8 ^ table[byte(crc>>24)^c]
	}
	n = int64(len(b))
	for l := uint64(n); l != 0; l >>= 8 {
		crc = crc<<8 ^ table[byte(crc>>24)^byte(l)]
	}
	return ^crc, n
}

// LineHash is the cursor's hash of one inbox line, "<crc>-<len>": the cksum of the
// line without its newline and NUL bytes. It is the one cursor hash, taken alike of
// the file's line and of a reader's copy.
func LineHash(line []byte) string {
	line = bytes.TrimSuffix(line, []byte{'\n'})
	if bytes.IndexByte(line, 0) >= 0 {
		line = bytes.ReplaceAll(line, []byte{0}, nil)
	}
	crc, n := Cksum(line)
	return strconv.FormatUint(uint64(crc), 10) + "-" + strconv.FormatInt(n, 10)
}
