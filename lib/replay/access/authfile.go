package access

import (
	"bufio"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
)

// Auth is the set of credentials of an auth file (--auth-file): bearer
// tokens and basic user:password pairs. Every secret is kept as its
// SHA-256 and compared in constant time against every entry of its kind
// (no early exit, so the time taken says nothing about which entry came
// close).
//
// The file has one entry a line; blank lines and lines starting with "#"
// are skipped:
//
//	USER:SECRET            basic authentication (also "basic USER:SECRET")
//	bearer NAME:SECRET     Authorization: Bearer SECRET, known as NAME
//
// SECRET is "sha256:" and the 64 hex digits of the SHA-256 of the password
// or token (printf %s PASSWORD | sha256sum), or else the password or token
// itself. NAME and USER are what the access log and the ACL rules' "user"
// see; they hold no ":" or white space.
type Auth struct {
	basic  []authEntry
	bearer []authEntry
	// w is the file LoadAuth read (Reload)
	w *watch
}

type authEntry struct {
	name string
	sum  [sha256.Size]byte
}

// ParseAuth reads an auth file. Its errors name the line, never a secret.
func ParseAuth(r io.Reader) (*Auth, error) {
	a := &Auth{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		kind := "basic"
		if k, rest, ok := strings.Cut(line, " "); ok && (strings.EqualFold(k, "bearer") || strings.EqualFold(k, "basic")) {
			kind, line = strings.ToLower(k), strings.TrimSpace(rest)
		}
		name, secret, ok := strings.Cut(line, ":")
		if !ok || name == "" || secret == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("line %d: want USER:SECRET or bearer NAME:SECRET", n)
		}
		e := authEntry{name: name}
		if h, ok := strings.CutPrefix(secret, "sha256:"); ok {
			b, err := hex.DecodeString(h)
			if err != nil || len(b) != sha256.Size {
				return nil, fmt.Errorf("line %d: sha256: wants 64 hex digits", n)
			}
			copy(e.sum[:], b)
		} else {
			e.sum = sha256.Sum256([]byte(secret))
		}
		if kind == "bearer" {
			a.bearer = append(a.bearer, e)
		} else {
			a.basic = append(a.basic, e)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %v", n+1, err)
	}
	if len(a.basic)+len(a.bearer) == 0 {
		return nil, fmt.Errorf("no entries")
	}
	return a, nil
}

// LoadAuth reads the auth file at path (Reload reads it again when it
// changes).
func LoadAuth(path string) (*Auth, error) {
	w := newWatch([]string{path}, false)
	a, err := loadAuth(path)
	if err != nil {
		return nil, err
	}
	a.w = w
	return a, nil
}

func loadAuth(path string) (*Auth, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, unwrapPath(err))
	}
	defer f.Close()
	a, err := ParseAuth(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return a, nil
}

// match returns the name of the entry whose secret is secret (and, for
// basic, whose name is name), comparing with every entry.
func match(entries []authEntry, name, secret string, byName bool) (string, bool) {
	sum := sha256.Sum256([]byte(secret))
	found := -1
	for i := range entries {
		ok := subtle.ConstantTimeCompare(sum[:], entries[i].sum[:])
		if byName {
			ok &= subtle.ConstantTimeCompare([]byte(name), []byte(entries[i].name))
		}
		if ok == 1 && found < 0 {
			found = i
		}
	}
	if found < 0 {
		return "", false
	}
	return entries[found].name, true
}

// Check returns the name the request's Authorization header
// authenticates, if it does.
func (a *Auth) Check(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, cred, _ := strings.Cut(h, " ")
	cred = strings.TrimSpace(cred)
	switch {
	case strings.EqualFold(scheme, "Bearer") && len(a.bearer) > 0:
		return match(a.bearer, "", cred, false)
	case strings.EqualFold(scheme, "Basic") && len(a.basic) > 0:
		b, err := base64.StdEncoding.DecodeString(cred)
		if err != nil {
			return "", false
		}
		user, pass, ok := strings.Cut(string(b), ":")
		if !ok {
			return "", false
		}
		return match(a.basic, user, pass, true)
	}
	return "", false
}

// Challenges are the WWW-Authenticate values of a 401: one per kind of
// entry the file has.
func (a *Auth) Challenges() []string {
	var out []string
	if len(a.basic) > 0 {
		out = append(out, `Basic realm="waczpack serve", charset="UTF-8"`)
	}
	if len(a.bearer) > 0 {
		out = append(out, `Bearer realm="waczpack serve"`)
	}
	return out
}
