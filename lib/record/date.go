package record

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// ParseDate parses a WARC-Date: W3C-ISO8601 in UTC, to the second or with a
// fraction (WARC 1.1 section 5.4), also accepting the shortened forms
// YYYY, YYYY-MM, YYYY-MM-DD, YYYY-MM-DDThh:mmZ that the W3C profile allows.
func ParseDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{
		time.RFC3339Nano,
		"2006-01-02T15:04Z07:00",
		"2006-01-02",
		"2006-01",
		"2006",
	} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("bad WARC-Date %q", s)
}

// FormatDate formats t as a WARC-Date in UTC: to the second, or with as many
// fractional digits as t has (up to nanoseconds) when frac is true.
func FormatDate(t time.Time, frac bool) string {
	if frac {
		return t.UTC().Format(time.RFC3339Nano)
	}
	return t.UTC().Format("2006-01-02T15:04:05Z")
}

// ErrBadTimestamp is returned by ParseTimestamp for strings that hold no digits
// or a date that does not exist.
var ErrBadTimestamp = errors.New("bad 14-digit timestamp")

// ParseTimestamp parses an ARC/CDX timestamp YYYYMMDDhhmmss (UTC). Shorter
// strings are completed as the Wayback Machine does (month and day 01, time
// 00:00:00); longer ones are cut to 14 digits. repaired reports whether the
// string was not exactly 14 digits.
func ParseTimestamp(s string) (t time.Time, repaired bool, err error) {
	if s == "" {
		return time.Time{}, false, ErrBadTimestamp
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return time.Time{}, false, fmt.Errorf("%w: %q", ErrBadTimestamp, s)
		}
	}
	d := s
	if len(d) > 14 {
		d = d[:14]
		repaired = true
	} else if len(d) < 14 {
		const pad = "00000101000000"
		if len(d) < 4 {
			return time.Time{}, false, fmt.Errorf("%w: %q", ErrBadTimestamp, s)
		}
		d += pad[len(d):]
		repaired = true
	}
	t, err = time.Parse("20060102150405", d)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("%w: %q", ErrBadTimestamp, s)
	}
	return t, repaired, nil
}

// Timestamp14 formats t as a 14-digit UTC timestamp YYYYMMDDhhmmss.
func Timestamp14(t time.Time) string { return t.UTC().Format("20060102150405") }
