package crawl

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"io"
	"net/url"
	"strings"
)

// Credential is a user name and password sent as HTTP Basic authentication
// (RFC 7617).
type Credential struct {
	User, Password string
}

// basic returns the Authorization field value of c.
func (c Credential) basic() string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(c.User+":"+c.Password))
}

// Redacted is the value recorded in place of the credentials of an
// Authorization or Proxy-Authorization field: the request records of a
// crawl (WARC request blocks) keep the authentication scheme only, e.g.
// "Authorization: Basic [redacted]".
const Redacted = "[redacted]"

// Origin returns the origin of an http(s) URL as "scheme://host:port" with
// the scheme and host in lower case and the port always written (80 and
// 443 by default), the key of Config.Auth.
func Origin(u *url.URL) string {
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + defaultPort(u)
}

// StripUserinfo removes the userinfo ("user:password@") from the authority
// of a URL given as text, without parsing the rest, and returns the URL
// without it and the user name and password, percent-decoded (ok is false
// when the URL had no userinfo). It is meant for URLs given on the command
// line, so that the secret is gone before anything prints the URL.
func StripUserinfo(raw string) (clean string, c Credential, ok bool) {
	i := strings.Index(raw, "://")
	if i < 0 {
		return raw, c, false
	}
	rest := raw[i+3:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	at := strings.LastIndexByte(rest[:end], '@')
	if at < 0 {
		return raw, c, false
	}
	info := rest[:at]
	user, pass, _ := strings.Cut(info, ":")
	if u, err := url.PathUnescape(user); err == nil {
		user = u
	}
	if p, err := url.PathUnescape(pass); err == nil {
		pass = p
	}
	return raw[:i+3] + rest[at+1:], Credential{User: user, Password: pass}, true
}

// redactAuth returns the value to record for an Authorization or
// Proxy-Authorization field value v: its scheme followed by Redacted.
func redactAuth(v string) string {
	scheme, _, _ := strings.Cut(strings.TrimSpace(v), " ")
	if scheme == "" {
		return Redacted
	}
	return scheme + " " + Redacted
}

// isAuthField reports the request fields whose values are secrets.
func isAuthField(name string) bool {
	return strings.EqualFold(name, "Authorization") || strings.EqualFold(name, "Proxy-Authorization")
}

// Netrc holds the entries of a .netrc file (the format of ftp(1), read by
// curl and wget): "machine NAME login USER password PASS" entries and an
// optional "default login USER password PASS" entry; "account" is read
// and ignored, "macdef NAME" skips the macro up to the next blank line.
type Netrc struct {
	entries []netrcEntry
}

type netrcEntry struct {
	machine string // "" for default
	def     bool
	login   string
	pass    string
}

// ParseNetrc reads a .netrc file; name is used in error messages, which
// never quote a password.
func ParseNetrc(r io.Reader, name string) (*Netrc, error) {
	n := &Netrc{}
	br := bufio.NewReader(r)
	var cur *netrcEntry
	line := 1
	// next returns the next token, and the line it is on.
	next := func() (string, bool, error) {
		// skip white space and comments
		for {
			b, err := br.ReadByte()
			if err == io.EOF {
				return "", false, nil
			}
			if err != nil {
				return "", false, err
			}
			switch {
			case b == '\n':
				line++
			case b == ' ' || b == '\t' || b == '\r' || b == '\f' || b == '\v':
			case b == '#':
				for {
					b, err = br.ReadByte()
					if err != nil {
						return "", false, nil
					}
					if b == '\n' {
						line++
						break
					}
				}
			default:
				br.UnreadByte()
				var tok strings.Builder
				if b == '"' {
					br.ReadByte()
					for {
						b, err = br.ReadByte()
						if err != nil {
							return "", false, fmt.Errorf("%s: line %d: unterminated quoted string", name, line)
						}
						if b == '"' {
							return tok.String(), true, nil
						}
						if b == '\\' {
							if b, err = br.ReadByte(); err != nil {
								return "", false, fmt.Errorf("%s: line %d: unterminated quoted string", name, line)
							}
							switch b {
							case 'n':
								b = '\n'
							case 'r':
								b = '\r'
							case 't':
								b = '\t'
							}
						}
						if b == '\n' {
							line++
						}
						tok.WriteByte(b)
					}
				}
				for {
					b, err = br.ReadByte()
					if err != nil {
						return tok.String(), true, nil
					}
					if b == ' ' || b == '\t' || b == '\r' || b == '\n' || b == '\f' || b == '\v' {
						br.UnreadByte()
						return tok.String(), true, nil
					}
					tok.WriteByte(b)
				}
			}
		}
	}
	value := func(kw string) (string, error) {
		v, ok, err := next()
		if err != nil {
			return "", err
		}
		if !ok {
			return "", fmt.Errorf("%s: line %d: %q without a value", name, line, kw)
		}
		return v, nil
	}
	for {
		tok, ok, err := next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		switch tok {
		case "machine":
			m, err := value(tok)
			if err != nil {
				return nil, err
			}
			n.entries = append(n.entries, netrcEntry{machine: strings.ToLower(m)})
			cur = &n.entries[len(n.entries)-1]
		case "default":
			n.entries = append(n.entries, netrcEntry{def: true})
			cur = &n.entries[len(n.entries)-1]
		case "login", "password", "account":
			v, err := value(tok)
			if err != nil {
				return nil, err
			}
			if cur == nil {
				return nil, fmt.Errorf("%s: line %d: %q before any machine or default", name, line, tok)
			}
			switch tok {
			case "login":
				cur.login = v
			case "password":
				cur.pass = v
			}
		case "macdef":
			if _, err := value(tok); err != nil {
				return nil, err
			}
			// the macro runs to the first empty line
			if _, err := br.ReadString('\n'); err != nil {
				return n, nil
			}
			line++
			for {
				l, err := br.ReadString('\n')
				line++
				if err != nil || strings.TrimRight(l, "\r\n") == "" {
					break
				}
			}
			cur = nil
		default:
			if cur == nil {
				return nil, fmt.Errorf("%s: line %d: unknown token (want machine, default or macdef)", name, line)
			}
			return nil, fmt.Errorf("%s: line %d: unknown token (want login, password or account)", name, line)
		}
	}
	return n, nil
}

// Lookup returns the credential of host (a host name or address, without
// port) as curl reads .netrc: the first "machine" entry naming host (with
// the login user when user is not ""), else the "default" entry.
func (n *Netrc) Lookup(host, user string) (Credential, bool) {
	host = strings.ToLower(strings.Trim(host, "[]"))
	for _, pass := range []bool{false, true} {
		for _, e := range n.entries {
			if e.def != pass || (!e.def && e.machine != host) {
				continue
			}
			if user != "" && e.login != "" && e.login != user {
				continue
			}
			login := e.login
			if user != "" {
				login = user
			}
			return Credential{User: login, Password: e.pass}, true
		}
	}
	return Credential{}, false
}
