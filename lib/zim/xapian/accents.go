package xapian

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// RemoveAccents is libzim's zim::removeAccents (src/tools.cpp), the ICU
// transliteration "Lower; NFD; [:M:] remove; NFC" that libzim ≥ 8.2
// applies to titles, contents and keywords before indexing and to queries
// before searching: lowercase, decompose, drop every combining mark,
// recompose. Go's lowercasing is Unicode's full default mapping without
// ICU's final-sigma context rule.
func RemoveAccents(s string) string {
	l := strings.ToLower(s)
	if isASCII(l) {
		return l // nothing to decompose, no mark
	}
	d := norm.NFD.String(l)
	var b strings.Builder
	b.Grow(len(d))
	for _, r := range d {
		if !unicode.Is(unicode.M, r) {
			b.WriteRune(r)
		}
	}
	return norm.NFC.String(b.String())
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
