package crawl

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// ScopeMode says which URLs belong to the mirror (chapter 4.2.1: "the check
// consists of a regular expression which value is by default the main URL
// prefix").
type ScopeMode int

const (
	// ScopePrefix keeps URLs under a start URL's directory: starting from
	// http://www.example.com/foo/index.html the scope is
	// www.example.com/foo/* (any scheme). It is the default.
	ScopePrefix ScopeMode = iota
	// ScopeHost keeps URLs on a start URL's host and port.
	ScopeHost
	// ScopeDomain keeps URLs on a start URL's registrable domain
	// (example.com for www.example.com) and its subdomains.
	ScopeDomain
	// ScopeAny keeps every URL; only filters, depth and traps bound the crawl.
	ScopeAny
)

var scopeNames = [...]string{"prefix", "host", "domain", "any"}

// String returns prefix, host, domain or any.
func (m ScopeMode) String() string {
	if int(m) < len(scopeNames) {
		return scopeNames[m]
	}
	return "ScopeMode(" + strconv.Itoa(int(m)) + ")"
}

// ParseScopeMode parses prefix, host, domain or any.
func ParseScopeMode(s string) (ScopeMode, error) {
	for i, n := range scopeNames {
		if strings.EqualFold(s, n) {
			return ScopeMode(i), nil
		}
	}
	return 0, fmt.Errorf("bad scope %q (want prefix, host, domain or any)", s)
}

// Scope is the set of URLs a crawl keeps, built from its start URLs.
type Scope struct {
	Mode     ScopeMode
	prefixes []string // host+path prefixes, for ScopePrefix
	hosts    map[string]bool
	domains  []string
}

// NewScope builds the scope of a crawl started from seeds (canonical URLs).
func NewScope(mode ScopeMode, seeds []*url.URL) *Scope {
	s := &Scope{Mode: mode, hosts: map[string]bool{}}
	for _, u := range seeds {
		s.hosts[u.Host] = true
		hp := hostPath(u)
		if i := strings.LastIndexByte(hp, '/'); i >= 0 {
			hp = hp[:i+1]
		}
		s.prefixes = append(s.prefixes, hp)
		s.domains = append(s.domains, RegistrableDomain(u.Hostname()))
	}
	return s
}

// Contains reports whether the canonical URL u is in scope.
func (s *Scope) Contains(u *url.URL) bool {
	switch s.Mode {
	case ScopeAny:
		return true
	case ScopeHost:
		return s.hosts[u.Host]
	case ScopeDomain:
		h := u.Hostname()
		for _, d := range s.domains {
			if h == d || strings.HasSuffix(h, "."+d) {
				return true
			}
		}
		return false
	}
	hp := hostPath(u)
	for _, p := range s.prefixes {
		if strings.HasPrefix(hp, p) {
			return true
		}
	}
	return false
}

// SameHost reports whether u is on one of the start URLs' hosts.
func (s *Scope) SameHost(u *url.URL) bool { return s.hosts[u.Host] }

// hostPath is host[:port] followed by the escaped path (no query).
func hostPath(u *url.URL) string {
	return u.Host + u.EscapedPath()
}

// RegistrableDomain returns the public suffix plus one label of host
// (example.co.uk for www.example.co.uk), or host itself for IP addresses,
// single-label names and public suffixes.
func RegistrableDomain(host string) string {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if net.ParseIP(strings.Trim(host, "[]")) != nil || !strings.Contains(host, ".") {
		return host
	}
	d, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		return host
	}
	return d
}
