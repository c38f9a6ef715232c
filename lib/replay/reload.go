package replay

import (
	"log"
	"time"

	"github.com/arcport/arcport/lib/replay/access"
)

// reloadRules looks at the files of the credentials (--auth-file) and
// access rules (--acl) in force at most once a second (recheckEvery), on
// a request, and puts the ones read again from changed files in force
// at once: a request sees the rules in force at its start, old or new,
// never a mix. A file that does not parse (or is gone) leaves the rules
// read before in force and is logged once per change, by file and line
// (never a secret of an auth file).
func (s *Server) reloadRules(g *guard) {
	now := time.Now().UnixNano()
	next := g.nextCheck.Load()
	if now < next || !g.nextCheck.CompareAndSwap(next, now+int64(recheckEvery)) {
		return
	}
	g.reloadMu.Lock()
	defer g.reloadMu.Unlock()
	old := g.rules.Load()
	logged := map[string]bool{}
	logf := func(what string, err error) {
		msg := what + " " + err.Error() + " (the rules read before stay in force)"
		if logged[msg] {
			return
		}
		logged[msg] = true
		if s.Log != nil {
			s.Log.Print(msg)
		} else {
			log.Print(msg)
		}
	}
	changed := false
	auth := old.auth
	if a, err := old.auth.Reload(); err != nil {
		logf("--auth-file", err)
	} else if a != nil {
		auth, changed = a, true
	}
	acc := make(map[string]*access.Access, len(old.access))
	replaced := map[*access.Access]*access.Access{}
	for name, a := range old.access {
		n, seen := replaced[a]
		if !seen {
			n = a
			if r, err := a.Reload(); err != nil {
				logf("--acl", err)
			} else if r != nil {
				n, changed = r, true
			}
			replaced[a] = n
		}
		acc[name] = n
	}
	if !changed {
		return
	}
	g.rules.Store(&guardRules{auth: auth, access: acc, clones: map[cloneKey]*Server{}})
	// the web pages' counts of the old rules are not asked for again
	uiStats.Range(func(k, _ any) bool {
		if n, ok := replaced[k.(statsKey).acc]; ok && n != k.(statsKey).acc {
			uiStats.Delete(k)
		}
		return true
	})
}
