package sse

import (
	"bytes"
	"testing"
)

func TestIndexLineBreak(t *testing.T) {
	naive := func(b []byte) int { return bytes.IndexAny(b, "\r\n") }
	// Place line breaks on both sides of every search-window boundary.
	for _, size := range []int{0, 1, 63, 64, 65, 191, 192, 193, 500, 5000} {
		for _, pos := range []int{0, 1, 62, 63, 64, 65, 190, 191, 192, 193, 447, 448, 449, 4999} {
			for _, brk := range []byte{'\r', '\n'} {
				for _, later := range []int{-1, 0, 1, 130, 3000} {
					b := bytes.Repeat([]byte{'x'}, size)
					if pos < size {
						b[pos] = brk
					}
					if other := pos + later; later >= 0 && other < size {
						b[other] = '\r' + '\n' - brk
					}
					if got, want := indexLineBreak(b), naive(b); got != want {
						t.Fatalf("size %d, %q at %d, other at +%d: got %d, want %d", size, brk, pos, later, got, want)
					}
				}
			}
		}
	}
}
