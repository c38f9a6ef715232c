package access

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/arcport/arcport/lib/cdx"
)

// Rule is one line of an .aclj file: the rule Access.Rule finds for a
// capture's key, to be passed to Access.Decide.
type Rule struct {
	line string // the whole line (the order of the rules)
	key  string
	// access is the rule's "access" ("exclude" when it has none).
	access string
	user   pyUser
	// date conditions, the first of before, after, newer, older set
	before, after string
	newer, older  *relDelta
}

// pyUser is a rule's "user" value as Python sees it.
type pyUser struct {
	none   bool // absent or null
	isStr  bool
	s      string
	truthy bool
}

// relDelta is dateutil's relativedelta(years, months, weeks, days).
type relDelta struct{ years, months, days int }

// before returns t - d as dateutil computes datetime - relativedelta:
// years and months first (the day clamped to the month's last), then
// the days.
func (d relDelta) before(t time.Time) time.Time {
	y, m := t.Year()-d.years, int(t.Month())-d.months
	for m < 1 {
		m += 12
		y--
	}
	for m > 12 {
		m -= 12
		y++
	}
	last := time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
	day := min(t.Day(), last)
	r := time.Date(y, time.Month(m), day, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
	return r.AddDate(0, 0, -d.days)
}

// parseDelta reads {"years": Y, "months": M, "weeks": W, "days": D}.
func parseDelta(v any) (*relDelta, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want {\"years\": ..., \"months\": ..., \"weeks\": ..., \"days\": ...}")
	}
	get := func(k string) (int, error) {
		x, ok := m[k]
		if !ok {
			return 0, nil
		}
		f, ok := x.(float64)
		if !ok || f != float64(int(f)) {
			return 0, fmt.Errorf("%s: want a whole number", k)
		}
		return int(f), nil
	}
	var d relDelta
	var w int
	var err error
	if d.years, err = get("years"); err != nil {
		return nil, err
	}
	if d.months, err = get("months"); err != nil {
		return nil, err
	}
	if w, err = get("weeks"); err != nil {
		return nil, err
	}
	if d.days, err = get("days"); err != nil {
		return nil, err
	}
	d.days += 7 * w
	return &d, nil
}

func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

func pyString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// parseACLLine reads "KEY TS JSON".
func parseACLLine(line string) (*Rule, error) {
	key, rest, ok := strings.Cut(line, " ")
	if !ok {
		return nil, fmt.Errorf("want SURT - {JSON}")
	}
	_, js, ok := strings.Cut(strings.TrimLeft(rest, " "), " ")
	if !ok {
		return nil, fmt.Errorf("want SURT - {JSON}")
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		return nil, fmt.Errorf("JSON: %v", err)
	}
	r := &Rule{line: line, key: key, access: "exclude"}
	if a, ok := m["access"]; ok {
		r.access = pyString(a)
	}
	u, ok := m["user"]
	switch {
	case !ok || u == nil:
		r.user.none = true
	default:
		r.user.s, r.user.isStr = u.(string)
		r.user.truthy = truthy(u)
	}
	var err error
	switch {
	case truthy(m["before"]):
		r.before = pyString(m["before"])
	case truthy(m["after"]):
		r.after = pyString(m["after"])
	case truthy(m["newer"]):
		r.newer, err = parseDelta(m["newer"])
	case truthy(m["older"]):
		r.older, err = parseDelta(m["older"])
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// ruleSet are the rules of one or more .aclj files (or folders of them),
// merged in reverse order as pywb's AccessRulesAggregator merges them.
type ruleSet struct {
	rules []*Rule // sorted in reverse order of their lines
	users map[string]bool
}

// loadACL reads .aclj files and folders of them (every *.aclj inside).
// Lines out of order are sorted (pywb would search them as they are and
// miss some). Errors name the file and line.
func loadACL(paths []string) (*ruleSet, error) {
	a := &ruleSet{users: map[string]bool{}}
	for _, p := range paths {
		files := []string{p}
		if st, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("%s: %v", p, unwrapPath(err))
		} else if st.IsDir() {
			files, _ = filepath.Glob(filepath.Join(p, "*.aclj"))
			sort.Strings(files)
		}
		for _, f := range files {
			if err := a.addFile(f); err != nil {
				return nil, err
			}
		}
	}
	// a stable sort keeps the files' order for equal lines, as heapq.merge
	sort.SliceStable(a.rules, func(i, j int) bool { return a.rules[i].line > a.rules[j].line })
	return a, nil
}

func (a *ruleSet) addFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s: %v", path, unwrapPath(err))
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		r, err := parseACLLine(line)
		if err != nil {
			return fmt.Errorf("%s:%d: %v", path, n, err)
		}
		if r.user.isStr {
			a.users[r.user.s] = true
		}
		a.rules = append(a.rules, r)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s:%d: %v", path, n+1, err)
	}
	return nil
}

// User is the user of a request: X-Pywb-Acl-User or the authenticated
// name (Set), or none (the zero User). It is comparable (a map key).
type User struct {
	Set  bool
	Name string
}

// find is AccessChecker.find_access_rule: nil for the default rule.
func (a *ruleSet) find(key string, user User) *Rule {
	const exactSearch = "####"
	target := key + exactSearch
	exact := key + "###"
	tld, _, _ := strings.Cut(key, ",")
	// the first line <= target, in reverse order
	i := sort.Search(len(a.rules), func(i int) bool { return a.rules[i].line <= target })
	var last *Rule
	lastKey := ""
	for ; i < len(a.rules); i++ {
		r := a.rules[i]
		if r.key != lastKey && last != nil {
			return last
		}
		if r.key == exact || strings.HasPrefix(key, r.key) || r.key == "*," {
			if r.user.none && !user.Set || r.user.isStr && user.Set && r.user.s == user.Name {
				return r
			} else if !r.user.truthy {
				lastKey, last = r.key, r
			}
		}
		if r.key < tld {
			break
		}
	}
	return last
}

// Embargo is a collection's embargo (pywb's embargo option): captures
// before or after a time-stamp, or newer or older than a time span,
// get Access (default "exclude") unless their rule is
// allow_ignore_embargo.
type Embargo struct {
	Before, After time.Time
	Newer, Older  *relDelta
	Access        string
}

var spanPart = regexp.MustCompile(`^([0-9]+)([ymwd])`)

// ParseEmbargo reads before=TS, after=TS, newer=SPAN or older=SPAN
// (SPAN: e.g. 1y6m, 2w, 30d), optionally followed by ",access=block".
func ParseEmbargo(s string) (*Embargo, error) {
	e := &Embargo{Access: "exclude"}
	spec, opt, _ := strings.Cut(s, ",")
	if opt != "" {
		v, ok := strings.CutPrefix(opt, "access=")
		if !ok || !validAccess(v) {
			return nil, fmt.Errorf("%q: after the comma, access=allow|block|exclude", s)
		}
		e.Access = v
	}
	k, v, ok := strings.Cut(spec, "=")
	if !ok || v == "" {
		return nil, fmt.Errorf("%q: want before=TS, after=TS, newer=SPAN or older=SPAN", s)
	}
	switch k {
	case "before", "after":
		if !isDigits(v) || len(v) > 14 {
			return nil, fmt.Errorf("%q: a time-stamp is 1 to 14 digits", s)
		}
		t := cdx.TimestampToDatetime(v)
		if k == "before" {
			e.Before = t
		} else {
			e.After = t
		}
	case "newer", "older":
		d := &relDelta{}
		rest := v
		for rest != "" {
			m := spanPart.FindStringSubmatch(rest)
			if m == nil {
				return nil, fmt.Errorf("%q: a span is e.g. 1y6m, 2w or 30d", s)
			}
			n, err := strconv.Atoi(m[1])
			if err != nil || n > 100000 {
				return nil, fmt.Errorf("%q: span too long", s)
			}
			switch m[2] {
			case "y":
				d.years += n
			case "m":
				d.months += n
			case "w":
				d.days += 7 * n
			case "d":
				d.days += n
			}
			rest = rest[len(m[0]):]
		}
		if k == "newer" {
			e.Newer = d
		} else {
			e.Older = d
		}
	default:
		return nil, fmt.Errorf("%q: want before=, after=, newer= or older=", s)
	}
	return e, nil
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func validAccess(v string) bool {
	switch v {
	case "allow", "block", "exclude":
		return true
	}
	return false
}

// check is AccessChecker.check_embargo: the access of an embargoed
// capture, "" for one that is not.
func (e *Embargo) check(dt, now time.Time) string {
	switch {
	case !e.Before.IsZero():
		if dt.Before(e.Before) {
			return e.Access
		}
	case !e.After.IsZero():
		if dt.After(e.After) {
			return e.Access
		}
	case e.Newer != nil:
		if e.Newer.before(now).Before(dt) {
			return e.Access
		}
	case e.Older != nil:
		if e.Older.before(now).After(dt) {
			return e.Access
		}
	}
	return ""
}

// Access is what a collection's captures are checked against: its ACL
// rules, the access of a capture no rule matches, and its embargo.
type Access struct {
	rules   *ruleSet
	Default string
	Embargo *Embargo
	// w is the files the rules were read from (Reload)
	w *watch
}

// ACL returns the Access of the .aclj files and folders of paths, with
// default access def ("allow" when empty).
func ACL(def string, embargo *Embargo, paths ...string) (*Access, error) {
	if def == "" {
		def = "allow"
	}
	if !validAccess(def) {
		return nil, fmt.Errorf("default access %q: want allow, block or exclude", def)
	}
	a := &Access{Default: def, Embargo: embargo}
	if len(paths) > 0 {
		w := newWatch(paths, true)
		r, err := loadACL(paths)
		if err != nil {
			return nil, err
		}
		a.rules, a.w = r, w
	}
	return a, nil
}

// Users returns the user names the rules name.
func (a *Access) Users() []string {
	if a == nil || a.rules == nil {
		return nil
	}
	var out []string
	for u := range a.rules.users {
		out = append(out, u)
	}
	sort.Strings(out)
	return out
}

// HasRules reports whether a has .aclj rules (not only an embargo).
func (a *Access) HasRules() bool { return a != nil && a.rules != nil }

// Names reports whether a rule names user (a "user" value), so that the
// user may see captures differently from an unnamed one.
func (a *Access) Names(user string) bool { return a.HasRules() && a.rules.users[user] }

// Rule is AccessChecker.find_access_rule: the rule of the longest SURT
// prefix of key (a capture's URL keyed as pywb keys a query, lib/replay's
// aclKey) for user, nil for the default rule (or when a has no rules).
func (a *Access) Rule(key string, user User) *Rule {
	if !a.HasRules() {
		return nil
	}
	return a.rules.find(key, user)
}

// Decide is AccessChecker.wrap_iter for one capture, once the rule of
// its URL (Rule; nil: the default) is known: the capture's access
// ("allow", "block", ...) at time-stamp ts, the rule's date conditions
// and the embargo checked at now; "" when it is excluded.
func (a *Access) Decide(rule *Rule, ts string, now time.Time) string {
	var access string
	if a.rules != nil {
		if rule == nil {
			access = a.Default
		} else {
			access = rule.access
		}
	}
	// check_date_access
	if rule != nil {
		dt := cdx.TimestampToDatetime(ts)
		cond, has := false, true
		switch {
		case rule.before != "":
			cond = dt.Before(cdx.TimestampToDatetime(rule.before))
		case rule.after != "":
			cond = dt.After(cdx.TimestampToDatetime(rule.after))
		case rule.newer != nil:
			cond = rule.newer.before(now).Before(dt)
		case rule.older != nil:
			cond = rule.older.before(now).After(dt)
		default:
			has = false
		}
		if has && !cond {
			access = a.Default
		}
	}
	if access != "allow_ignore_embargo" && access != "exclude" && a.Embargo != nil {
		if ea := a.Embargo.check(cdx.TimestampToDatetime(ts), now); ea != "" && ea != "allow" {
			access = ea
		}
	}
	switch access {
	case "exclude":
		return ""
	case "":
		return a.Default
	case "allow_ignore_embargo":
		return "allow"
	}
	return access
}
