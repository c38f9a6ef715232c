package access

import (
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// stamp is what says a file changed: its size and modification time (a
// folder's: the .aclj files in it, each with its own).
type stamp struct {
	name string
	size int64
	mod  time.Time
	err  bool
}

// stampsOf returns the stamps of paths, a folder's .aclj files included.
func stampsOf(paths []string, aclFolders bool) []stamp {
	var out []stamp
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			out = append(out, stamp{name: p, err: true})
			continue
		}
		out = append(out, stamp{name: p, size: st.Size(), mod: st.ModTime()})
		if st.IsDir() && aclFolders {
			files, _ := filepath.Glob(filepath.Join(p, "*.aclj"))
			sort.Strings(files)
			for _, f := range files {
				if st, err := os.Stat(f); err != nil {
					out = append(out, stamp{name: f, err: true})
				} else {
					out = append(out, stamp{name: f, size: st.Size(), mod: st.ModTime()})
				}
			}
		}
	}
	return out
}

func sameStamps(a, b []stamp) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].name != b[i].name || a[i].size != b[i].size || !a[i].mod.Equal(b[i].mod) || a[i].err != b[i].err {
			return false
		}
	}
	return true
}

// watch is the files a set of rules or credentials was read from, and
// their stamps when last looked at; the sets read again from them share
// it.
type watch struct {
	mu    sync.Mutex
	paths []string
	acl   bool
	seen  []stamp
}

func newWatch(paths []string, acl bool) *watch {
	return &watch{paths: append([]string(nil), paths...), acl: acl, seen: stampsOf(paths, acl)}
}

// check reads the files again with read when their stamps changed since
// they were last looked at: ok false when they did not (or are being
// written: their stamps changed while read, so they are read again next
// time). A file that does not read (err) is not read again before it
// changes again.
func (w *watch) check(read func() error) (ok bool, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	before := stampsOf(w.paths, w.acl)
	if sameStamps(before, w.seen) {
		return false, nil
	}
	err = read()
	after := stampsOf(w.paths, w.acl)
	if !sameStamps(before, after) {
		// written while read: a half-written file is never used
		w.seen = nil
		return false, nil
	}
	w.seen = after
	if err != nil {
		return false, err
	}
	return true, nil
}

// Reload reads a's .aclj files again when one of them changed (size,
// modification time, a folder's files) since they were read: the new
// rules (the same default access and embargo), or nil when nothing
// changed. A file that does not parse gives an error naming the file and
// line, once per change; a is then still the one to use.
func (a *Access) Reload() (*Access, error) {
	if a == nil || a.w == nil {
		return nil, nil
	}
	var n *Access
	ok, err := a.w.check(func() error {
		var err error
		n, err = ACL(a.Default, a.Embargo, a.w.paths...)
		return err
	})
	if !ok {
		return nil, err
	}
	n.w = a.w
	return n, nil
}

// Reload reads a's auth file again when it changed since it was read:
// the new credentials, or nil when it did not change. A file that does
// not parse gives an error naming the file and line (never a secret),
// once per change; a is then still the one to use.
func (a *Auth) Reload() (*Auth, error) {
	if a == nil || a.w == nil {
		return nil, nil
	}
	var n *Auth
	ok, err := a.w.check(func() error {
		var err error
		n, err = loadAuth(a.w.paths[0])
		return err
	})
	if !ok {
		return nil, err
	}
	n.w = a.w
	return n, nil
}

// Path returns the file a was read from ("" for ParseAuth's).
func (a *Auth) Path() string {
	if a == nil || a.w == nil {
		return ""
	}
	return a.w.paths[0]
}
