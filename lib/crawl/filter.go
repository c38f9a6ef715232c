package crawl

import (
	"fmt"
	"strings"
)

// Filter is one HTTrack scan rule: +PATTERN includes the URLs it matches,
// -PATTERN excludes them. When several rules match a URL the last one wins.
//
// Patterns use HTTrack's wildcard syntax, matched against the whole URL,
// ignoring case:
//
//   - any characters, including none
//     *[file]      any characters but / ? ; (also written *[name])
//     *[path]      any characters but ? ; (a path and file name)
//     *[param]     any characters but / (a query string)
//     *[a,z,0-9]   any run of the listed characters and ranges
//     *[]          nothing: the URL must end here
//     \*  \[  \\   a literal * [ or \ (also inside *[...])
//
// A pattern without "://" is matched against the URL without its scheme
// ("www.example.com/a/b.gif"); one with "://" against the whole URL. So
// "-*.gif" excludes every GIF, "+www.example.com/*" includes that host and
// "-*/cgi-bin/*" excludes every cgi-bin.
type Filter struct {
	Include bool   // true for +PATTERN
	Pattern string // as given, without the sign
	toks    []ftok
	full    bool // pattern names a scheme
}

type ftok struct {
	lit  string     // literal text (when star == false)
	star bool       // wildcard
	set  *[256]bool // allowed bytes for a star (nil: any)
	end  bool       // *[]: end of input
}

// ParseFilter parses "+PATTERN" or "-PATTERN". A rule without a sign is an
// include rule, as in HTTrack.
func ParseFilter(rule string) (Filter, error) {
	rule = strings.TrimSpace(rule)
	f := Filter{Include: true}
	switch {
	case strings.HasPrefix(rule, "+"):
		rule = rule[1:]
	case strings.HasPrefix(rule, "-"):
		f.Include = false
		rule = rule[1:]
	}
	if rule == "" {
		return f, fmt.Errorf("filter %q: empty pattern", rule)
	}
	if strings.HasPrefix(strings.ToLower(rule), "mime:") {
		return f, fmt.Errorf("filter %q: MIME rules are not supported", rule)
	}
	f.Pattern = rule
	f.full = strings.Contains(rule, "://")
	low := strings.ToLower(rule)
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			f.toks = append(f.toks, ftok{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(low); i++ {
		c := low[i]
		switch {
		case c == '\\' && i+1 < len(low):
			i++
			lit.WriteByte(low[i])
		case c == '*':
			flush()
			t := ftok{star: true}
			if i+1 < len(low) && low[i+1] == '[' {
				j := i + 2
				for j < len(low) && low[j] != ']' {
					if low[j] == '\\' {
						j++
					}
					j++
				}
				if j >= len(low) {
					return f, fmt.Errorf("filter %q: unclosed *[", rule)
				}
				spec := low[i+2 : j]
				i = j
				set, end, err := charSet(spec)
				if err != nil {
					return f, fmt.Errorf("filter %q: %v", rule, err)
				}
				t.set, t.end = set, end
			}
			f.toks = append(f.toks, t)
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return f, nil
}

func charSet(spec string) (*[256]bool, bool, error) {
	var set [256]bool
	all := func(except string) *[256]bool {
		for c := 0; c < 256; c++ {
			set[c] = strings.IndexByte(except, byte(c)) < 0
		}
		return &set
	}
	switch spec {
	case "":
		return nil, true, nil
	case "file", "name":
		return all("/?;"), false, nil
	case "path":
		return all("?;"), false, nil
	case "param":
		return all("/"), false, nil
	}
	// a list of characters and ranges separated by commas
	var items []string
	var cur strings.Builder
	for i := 0; i < len(spec); i++ {
		switch c := spec[i]; {
		case c == '\\' && i+1 < len(spec):
			i++
			cur.WriteByte('\\')
			cur.WriteByte(spec[i])
		case c == ',':
			items = append(items, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	items = append(items, cur.String())
	for _, it := range items {
		it = strings.ReplaceAll(it, "\\", "")
		switch {
		case len(it) == 1:
			set[it[0]] = true
		case len(it) == 3 && it[1] == '-' && it[0] <= it[2]:
			for c := int(it[0]); c <= int(it[2]); c++ {
				set[c] = true
			}
		default:
			return nil, false, fmt.Errorf("bad character class item %q", it)
		}
	}
	return &set, false, nil
}

// Match reports whether the filter's pattern matches the canonical URL u.
func (f *Filter) Match(u string) bool {
	s := strings.ToLower(u)
	if !f.full {
		if i := strings.Index(s, "://"); i >= 0 {
			s = s[i+3:]
		}
	}
	return matchToks(f.toks, s)
}

// matchToks matches the whole of s with a dynamic programme over (token,
// position): linear in len(toks)*len(s), never exponential.
func matchToks(toks []ftok, s string) bool {
	n := len(s)
	// cur[i] is true when the tokens so far can end at position i.
	cur := make([]bool, n+1)
	next := make([]bool, n+1)
	cur[0] = true
	for _, t := range toks {
		for i := range next {
			next[i] = false
		}
		any := false
		switch {
		case t.end:
			if cur[n] {
				next[n] = true
				any = true
			}
		case t.star:
			run := false
			for i := 0; i <= n; i++ {
				if cur[i] {
					run = true
				}
				if run {
					next[i] = true
					any = true
				}
				if i < n && t.set != nil && !t.set[s[i]] {
					run = false
				}
			}
		default:
			l := len(t.lit)
			for i := 0; i+l <= n; i++ {
				if cur[i] && s[i:i+l] == t.lit {
					next[i+l] = true
					any = true
				}
			}
		}
		if !any {
			return false
		}
		cur, next = next, cur
	}
	return cur[n]
}

// Filters is an ordered list of scan rules.
type Filters []Filter

// ParseFilters parses rules in order.
func ParseFilters(rules []string) (Filters, error) {
	var fs Filters
	for _, r := range rules {
		f, err := ParseFilter(r)
		if err != nil {
			return nil, err
		}
		fs = append(fs, f)
	}
	return fs, nil
}

// Decide returns +1 when the last rule matching u includes it, -1 when it
// excludes it, and 0 when no rule matches.
func (fs Filters) Decide(u string) int {
	d, _ := fs.decide(u)
	return d
}

// decide is Decide, also returning the rule that decided (nil for 0).
func (fs Filters) decide(u string) (int, *Filter) {
	for i := len(fs) - 1; i >= 0; i-- {
		if fs[i].Match(u) {
			if fs[i].Include {
				return 1, &fs[i]
			}
			return -1, &fs[i]
		}
	}
	return 0, nil
}
