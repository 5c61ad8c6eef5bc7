// Package logval makes values taken from a request safe to log: bounded in
// length and quoted, so that a client can neither fill the log (a 700 KiB
// JWT "kid", session id or method name) nor forge a line in it (a newline
// or a terminal escape in a header), and it limits how often one kind of
// line is written (Limiter, Logger).
//
// Every module of the repository logs through it, the nested ones
// (adapters/mcpgo, redisstore, otelmcp) included: Go allows an internal
// package to be imported from under the directory that holds it, by import
// path, whatever module the importer is in.
package logval

import (
	"strconv"
	"unicode/utf8"
)

// MaxLen is how many bytes of a value String keeps.
const MaxLen = 64

// MaxErrLen is how many bytes of an error's text Err keeps: more than
// MaxLen, for an error names its cause as well as the value it holds.
const MaxErrLen = 256

// String returns s for a log: its first MaxLen bytes at most, cut on a
// UTF-8 boundary, quoted with strconv.Quote, and, when cut, followed by
// its whole length, as in "abc…" (700000 bytes).
func String(s string) string { return Bound(s, MaxLen) }

// Err returns err's text for a log as String does a value, keeping
// MaxErrLen bytes, for errors that may hold text from a request (a JWT
// parser's message naming the kid, a JSON decoder's naming a field). A nil
// err gives "<nil>".
func Err(err error) string {
	if err == nil {
		return "<nil>"
	}
	return Bound(err.Error(), MaxErrLen)
}

// Bound returns s quoted, cut to its first n bytes at most (on a UTF-8
// boundary: a rune that does not fit whole is left out) with its length
// noted when it was longer.
func Bound(s string, n int) string {
	if len(s) <= n {
		return strconv.Quote(s)
	}
	cut := max(n, 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]+"…") + " (" + strconv.Itoa(len(s)) + " bytes)"
}
