package cdx

import (
	"strconv"
	"strings"
	"time"
)

// TimestampToDatetime is warcio's timestamp_to_datetime (what pywb reads a
// capture's or a rule's 14-digit time-stamp with): padded to six digits
// with 299912, each field clamped, a field that is missing or not a number
// its maximum.
func TimestampToDatetime(s string) time.Time {
	if len(s) < 6 {
		s += "299912"[len(s):]
	}
	extract := func(a, b, lo, hi int) int {
		if len(s) < b {
			return hi
		}
		n, ok := PyInt(s[a:b])
		if !ok {
			return hi
		}
		return int(min(max(n, int64(lo)), int64(hi)))
	}
	y := extract(0, 4, 1900, 2999)
	mo := extract(4, 6, 1, 12)
	last := time.Date(y, time.Month(mo)+1, 0, 0, 0, 0, 0, time.UTC).Day()
	d := extract(6, 8, 1, last)
	return time.Date(y, time.Month(mo), d, extract(8, 10, 0, 23), extract(10, 12, 0, 59), extract(12, 14, 0, 59), 0, time.UTC)
}

// PyInt is Python's int() of a string: spaces around, a sign, digits with
// single underscores between them.
func PyInt(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" || s[0] == '_' || s[0] == '+' || s[0] == '-' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return 0, false
	}
	s = strings.ReplaceAll(s, "_", "")
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}
