package replay

import (
	"path"
	"strings"
)

// fuzzyIter is FuzzyMatcher.get_fuzzy_iter with pywb's last, general rule
// (url_prefix "", match "()"): when the query finds nothing and
// allowFuzzy is not false, the URL up to its "?" (and a "/" before it) is
// looked up as a prefix, limit 100, and the captures that differ from it
// only by query (a file extension, a streaming mime type or a method) or
// by cache-busting arguments are returned, marked is_fuzzy. The
// site-specific rules of pywb's rules.yaml are not applied.
func fuzzyIter(first iterFunc, q *query, run func(*query) (iterFunc, error)) iterFunc {
	found := false
	var fz iterFunc
	var origURL, origKey string
	cache := map[int]string{}
	return func() (*cdxObj, error) {
		if fz == nil {
			c, err := first()
			if c != nil || err != nil {
				found = found || c != nil
				return c, err
			}
			if found || !pyToBool(orDefault(q.params, "allowFuzzy", "1")) {
				return nil, nil
			}
			origURL = q.params["url"]
			origKey, _, err = q.rangeFor(nil)
			if err != nil {
				return nil, err
			}
			u := origURL
			if inx := strings.Index(u, "?"); inx > 0 {
				n := inx
				if u[n-1] == '/' {
					n--
				}
				u = u[:n]
			}
			fq := &query{params: map[string]string{"url": u, "matchType": "prefix", "is_fuzzy": "1", "limit": "100"}, filters: []string{"urlkey:"}, now: q.now, done: q.done}
			for k, v := range q.params {
				switch k {
				case "alt_url", "reverse", "closest", "end_key", "url", "matchType", "filter":
					continue
				}
				fq.params[k] = v
			}
			fz, err = run(fq)
			if err != nil {
				return nil, err
			}
		}
		for {
			c, err := fz()
			if c == nil || err != nil {
				return c, err
			}
			if matchGeneralFuzzy(origURL, origKey, c, cache) {
				c.set("is_fuzzy", str("1"))
				return c, nil
			}
		}
	}
}

func orDefault(m map[string]string, k, def string) string {
	if v, ok := m[k]; ok {
		return v
	}
	return def
}

var notExts = map[string]bool{"asp": true, "aspx": true, "jsp": true, "php": true, "pl": true, "exe": true, "dll": true}

var fuzzyMimes = map[string]bool{"application/x-shockwave-flash": true, "application/dash+xml": true, "application/x-mpegURL": true, "application/vnd.apple.mpegurl": true}

// pySplitextExt is os.path.splitext(p)[1][1:]: the extension after the
// last dot that is not at the start of the name (leading dots do not
// count).
func pySplitextExt(p string) string {
	ext := path.Ext(p)
	if ext == "" {
		return ""
	}
	base := p[:len(p)-len(ext)]
	if strings.Trim(base, ".") == "" {
		return ""
	}
	return ext[1:]
}

func matchGeneralFuzzy(u, urlkey string, c *cdxObj, cache map[int]string) bool {
	if c.gets(fStatus) == "204" && strings.Contains(c.gets(fURLKey), "__pywb_method=options") {
		return false
	}
	noQuery, _, _ := strings.Cut(u, "?")
	last := noQuery[strings.LastIndex(noQuery, "/")+1:]
	ext := pySplitextExt(last)
	check := false
	if ext != "" && !notExts[ext] {
		check = true
	} else if m := c.gets(fMIME); m != "" && fuzzyMimes[m] {
		check = true
	} else if c.gets("requestBody") != "" || c.gets("method") != "" {
		check = true
	}
	if check {
		cu := c.gets(fURL)
		if cu == noQuery || strings.HasPrefix(cu, noQuery+"?") {
			return true
		}
	}
	mk := c.gets(fURLKey)
	for i, norm := range urlNormalize {
		mk = norm(mk)
		cur, ok := cache[i]
		if !ok || cur == "" {
			cur = norm(urlkey)
			cache[i] = cur
			urlkey = cur
		}
		if cur == mk {
			return true
		}
	}
	return false
}

// urlNormalize are the url_normalize rules of pywb's rules.yaml, written
// out (Go's regexp has no lookahead):
//
//	[?&](_|cb|uncache)=([\d]+)(?=&|$)  -> ""
//	[?&]utm_[^=]+=[^&]+(?=&|$)         -> ""
//	[?&](callback=jsonp)[^&]+(?=&|$)   -> "callback=jsonp"
var urlNormalize = []func(string) string{
	func(s string) string {
		return subAt(s, func(s string, i int) (int, string) {
			j := i + 1
			switch {
			case strings.HasPrefix(s[j:], "_="):
				j += 2
			case strings.HasPrefix(s[j:], "cb="):
				j += 3
			case strings.HasPrefix(s[j:], "uncache="):
				j += 8
			default:
				return -1, ""
			}
			k := j
			for k < len(s) && s[k] >= '0' && s[k] <= '9' {
				k++
			}
			if k == j || (k < len(s) && s[k] != '&') {
				return -1, ""
			}
			return k, ""
		})
	},
	func(s string) string {
		return subAt(s, func(s string, i int) (int, string) {
			j := i + 1
			if !strings.HasPrefix(s[j:], "utm_") {
				return -1, ""
			}
			j += 4
			eq := strings.IndexByte(s[j:], '=')
			if eq <= 0 {
				return -1, ""
			}
			j += eq + 1
			k := j
			for k < len(s) && s[k] != '&' {
				k++
			}
			if k == j {
				return -1, ""
			}
			return k, ""
		})
	},
	func(s string) string {
		return subAt(s, func(s string, i int) (int, string) {
			j := i + 1
			if !strings.HasPrefix(s[j:], "callback=jsonp") {
				return -1, ""
			}
			j += len("callback=jsonp")
			k := j
			for k < len(s) && s[k] != '&' {
				k++
			}
			if k == j {
				return -1, ""
			}
			return k, "callback=jsonp"
		})
	},
}

// subAt is re.sub for a pattern starting with [?&]: m returns where a
// match at i ends (-1: none) and its replacement.
func subAt(s string, m func(s string, i int) (int, string)) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if s[i] == '?' || s[i] == '&' {
			if end, rep := m(s, i); end >= 0 {
				b.WriteString(s[last:i])
				b.WriteString(rep)
				last, i = end, end
				continue
			}
		}
		i++
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}
