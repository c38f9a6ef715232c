package crawl

import (
	"net/url"
	"strconv"
	"strings"
)

// DefaultTraps are the trap bounds used where a field of Traps is zero.
var DefaultTraps = Traps{MaxURLLength: 2048, MaxRepeat: 3, MaxSegments: 64, MaxQueryVariants: 1000}

// Traps bounds the URL shapes the crawler accepts, so that endless loops
// (chapter 4.3.1: session tickets in URLs, calendars, relative links that
// nest forever) cannot grow a crawl without end. A zero field means the
// default; a negative one turns that check off.
type Traps struct {
	// MaxURLLength is the longest canonical URL taken (default 2048 bytes).
	MaxURLLength int
	// MaxRepeat is how often one path segment may occur in a path
	// (default 3: /a/b/a/b/a/b/a/ has "a" four times and is refused).
	MaxRepeat int
	// MaxSegments is the deepest path taken (default 64 segments).
	MaxSegments int
	// MaxQueryVariants is how many different query strings one path may be
	// fetched with (default 1000).
	MaxQueryVariants int
}

func (t Traps) withDefaults() Traps {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&t.MaxURLLength, DefaultTraps.MaxURLLength)
	def(&t.MaxRepeat, DefaultTraps.MaxRepeat)
	def(&t.MaxSegments, DefaultTraps.MaxSegments)
	def(&t.MaxQueryVariants, DefaultTraps.MaxQueryVariants)
	return t
}

// check returns why the canonical URL s (parsed as u) looks like a trap, or
// "" when it does not. Query variants are counted by the frontier.
func (t Traps) check(u *url.URL, s string) string {
	if t.MaxURLLength > 0 && len(s) > t.MaxURLLength {
		return "trap: URL longer than " + strconv.Itoa(t.MaxURLLength) + " bytes"
	}
	p := u.EscapedPath()
	segs := strings.Split(strings.Trim(p, "/"), "/")
	if t.MaxSegments > 0 && len(segs) > t.MaxSegments {
		return "trap: more than " + strconv.Itoa(t.MaxSegments) + " path segments"
	}
	if t.MaxRepeat > 0 && len(segs) > t.MaxRepeat {
		count := make(map[string]int, len(segs))
		for _, sg := range segs {
			if sg == "" {
				continue
			}
			count[sg]++
			if count[sg] > t.MaxRepeat {
				return "trap: path segment " + strconv.Quote(sg) + " repeated more than " + strconv.Itoa(t.MaxRepeat) + " times"
			}
		}
	}
	return ""
}
