package stdio

import "strconv"

// quote is s cut at max bytes and quoted, for logging a value that came
// from a child process or a request.
func quote(s string, max int) string {
	if len(s) > max {
		s = s[:max] + "…"
	}
	return strconv.Quote(s)
}
