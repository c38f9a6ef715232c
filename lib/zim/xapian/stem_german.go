package xapian

import (
	"strings"
	"unicode/utf8"
)

// StemGerman is the Snowball "german" stemmer as Xapian 1.4 ships it
// (xapian-core/languages/german.sbl), for lowercase words; it is what
// Xapian::Stem("de") does. Words that are not valid UTF-8 come back
// unchanged.
func StemGerman(word string) string {
	if !utf8.ValidString(word) {
		return word
	}
	s := &stemDE{w: []rune(strings.ReplaceAll(word, "ß", "ss"))}
	s.stem()
	return string(s.w)
}

type stemDE struct {
	w      []rune
	p1, p2 int
}

func isVowelDE(r rune) bool {
	switch r {
	case 'a', 'e', 'i', 'o', 'u', 'y', 'ä', 'ö', 'ü':
		return true
	}
	return false
}

func sEndingDE(r rune) bool { return strings.ContainsRune("bdfghklmnrt", r) }

func (s *stemDE) ends(c int, suf string) bool {
	i := c
	for len(suf) > 0 {
		r, n := utf8.DecodeLastRuneInString(suf)
		suf = suf[:len(suf)-n]
		i--
		if i < 0 || s.w[i] != r {
			return false
		}
	}
	return true
}

func (s *stemDE) among(c int, list ...string) (string, int, bool) {
	best, n, found := "", 0, false
	for _, suf := range list {
		if l := utf8.RuneCountInString(suf); s.ends(c, suf) && (!found || l > n) {
			best, n, found = suf, l, true
		}
	}
	return best, c - n, found
}

func (s *stemDE) cut(bra, ket int) { s.w = append(s.w[:bra], s.w[ket:]...) }

func (s *stemDE) stem() {
	w := s.w
	// prelude: u and y between vowels are consonants (ß became ss above)
	for i := 0; i+2 < len(w); i++ {
		if isVowelDE(w[i]) && isVowelDE(w[i+2]) {
			switch w[i+1] {
			case 'u':
				w[i+1] = 'U'
			case 'y':
				w[i+1] = 'Y'
			}
		}
	}
	s.markRegions()
	s.standardSuffix()
	for i, r := range s.w { // postlude
		switch r {
		case 'Y':
			s.w[i] = 'y'
		case 'U', 'ü':
			s.w[i] = 'u'
		case 'ä':
			s.w[i] = 'a'
		case 'ö':
			s.w[i] = 'o'
		}
	}
}

func (s *stemDE) markRegions() {
	w := s.w
	n := len(w)
	s.p1, s.p2 = n, n
	if n < 3 {
		return
	}
	gopast := func(i int) (int, bool) {
		for i < n && !isVowelDE(w[i]) {
			i++
		}
		for i < n && isVowelDE(w[i]) {
			i++
		}
		if i >= n {
			return n, false
		}
		return i + 1, true
	}
	c, ok := gopast(0)
	if !ok {
		return
	}
	s.p1 = max(c, 3)
	if p2, ok := gopast(c); ok {
		s.p2 = p2
	}
}

func (s *stemDE) standardSuffix() {
	// step 1
	c := len(s.w)
	if suf, bra, ok := s.among(c, "em", "ern", "er", "e", "en", "es", "s"); ok && s.p1 <= bra {
		switch suf {
		case "em", "ern", "er":
			s.cut(bra, c)
		case "e", "en", "es":
			s.cut(bra, c)
			if s.ends(bra, "s") && s.ends(bra-1, "nis") {
				s.cut(bra-1, bra)
			}
		case "s":
			if bra >= 1 && sEndingDE(s.w[bra-1]) {
				s.cut(bra, c)
			}
		}
	}
	// step 2
	c = len(s.w)
	if suf, bra, ok := s.among(c, "en", "er", "est", "st"); ok && s.p1 <= bra {
		switch suf {
		case "en", "er", "est":
			s.cut(bra, c)
		case "st":
			if bra >= 1 && sEndingDE(s.w[bra-1]) && s.w[bra-1] != 'r' && bra-1 >= 3 {
				s.cut(bra, c)
			}
		}
	}
	// step 3
	c = len(s.w)
	suf, bra, ok := s.among(c, "end", "ung", "ig", "ik", "isch", "lich", "heit", "keit")
	if !ok || s.p2 > bra {
		return
	}
	switch suf {
	case "end", "ung":
		s.cut(bra, c)
		if s.ends(bra, "ig") && !s.ends(bra-2, "e") && s.p2 <= bra-2 {
			s.cut(bra-2, bra)
		}
	case "ig", "ik", "isch":
		if !s.ends(bra, "e") {
			s.cut(bra, c)
		}
	case "lich", "heit":
		s.cut(bra, c)
		if (s.ends(bra, "er") || s.ends(bra, "en")) && s.p1 <= bra-2 {
			s.cut(bra-2, bra)
		}
	case "keit":
		s.cut(bra, c)
		if _, b2, ok := s.among(bra, "lich", "ig"); ok && s.p2 <= b2 {
			s.cut(b2, bra)
		}
	}
}

// StemmerFor returns the stemmer for a language given as libzim gets it
// from a ZIM's Language metadata (ISO 639-3, "eng") or as ISO 639-1 ("en")
// or Xapian's name ("english"), or nil when there is none here (libzim
// then indexes without stemming).
func StemmerFor(lang string) func(string) string {
	if i := strings.IndexAny(lang, ",_-"); i >= 0 { // "eng,fra" or "en_US": the first
		lang = lang[:i]
	}
	switch strings.ToLower(strings.TrimSpace(lang)) {
	case "en", "eng", "english":
		return StemEnglish
	case "fr", "fra", "fre", "french":
		return StemFrench
	case "de", "deu", "ger", "german":
		return StemGerman
	case "es", "spa", "spanish":
		return StemSpanish
	case "ru", "rus", "russian":
		return StemRussian
	case "it", "ita", "italian":
		return StemItalian
	case "pt", "por", "portuguese":
		return StemPortuguese
	}
	return nil
}
