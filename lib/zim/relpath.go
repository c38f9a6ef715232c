package zim

import (
	"fmt"
	"strings"
)

// ComputeRelativePath returns the path of target relative to the directory
// of base, both archive paths with '/' separators, as zim-tools computes it
// for redirect links.
func ComputeRelativePath(base, target string) string {
	if strings.HasSuffix(target, "/") {
		if base == target {
			return "./"
		}
		return getRelativePath(base, target[:len(target)-1]) + "/"
	}
	return getRelativePath(base, target)
}

func getRelativePath(base, target string) string {
	b := strings.Split(base, "/")
	t := strings.Split(target, "/")
	l := min(len(b)-1, len(t))
	i := 0
	for i < l && b[i] == t[i] {
		i++
	}
	ups := len(b) - i
	if i == len(t) {
		ups++
	}
	var r strings.Builder
	add := func(s string) {
		if r.Len() > 0 && !strings.HasSuffix(r.String(), "/") {
			r.WriteByte('/')
		}
		r.WriteString(s)
	}
	for k := 1; k < ups; k++ {
		add("..")
	}
	for _, s := range t[i:] {
		add(s)
	}
	return r.String()
}

// RedirectHTML returns the HTML refresh page zimdump writes for a redirect
// to url (percent-encoded like zim-tools' urlEncode with reserved
// characters encoded).
func RedirectHTML(url string) string {
	return `<!DOCTYPE html><html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8" />` +
		`<meta http-equiv="refresh" content="0;url=` + urlEncode(url) + `" /></head><body></body></html>`
}

func urlEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
			b.WriteByte(c)
		case strings.IndexByte("-_.!~*'()/", c) >= 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
