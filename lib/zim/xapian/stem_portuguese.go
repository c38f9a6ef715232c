package xapian

import (
	"strings"
	"unicode/utf8"
)

// StemPortuguese is the Snowball "portuguese" stemmer as Xapian 1.4 ships
// it (xapian-core/languages/portuguese.sbl), for lowercase words; it is
// what Xapian::Stem("pt") does. Words that are not valid UTF-8 come back
// unchanged.
func StemPortuguese(word string) string {
	if !utf8.ValidString(word) {
		return word
	}
	word = strings.NewReplacer("ã", "a~", "õ", "o~").Replace(word)
	s := &stemPT{stemFR: stemFR{w: []rune(word)}}
	s.stem()
	return strings.NewReplacer("a~", "ã", "o~", "õ").Replace(string(s.w))
}

type stemPT struct{ stemFR }

func isVowelPT(r rune) bool {
	switch r {
	case 'a', 'e', 'i', 'o', 'u', 'á', 'é', 'í', 'ó', 'ú', 'â', 'ê', 'ô':
		return true
	}
	return false
}

func (s *stemPT) stem() {
	s.pV, s.p1, s.p2 = romanceRegions(s.w, isVowelPT)
	if s.standardSuffix() || s.verbSuffix() {
		c := len(s.w)
		if c >= 2 && s.w[c-1] == 'i' && s.w[c-2] == 'c' && s.rv(c-1) {
			s.replace(c-1, c, "")
		}
	} else {
		c := len(s.w)
		if _, bra, ok := s.among(c, 0, []string{"os", "a", "i", "o", "á", "í", "ó"}); ok && s.rv(bra) {
			s.replace(bra, c, "")
		}
	}
	// residual_form
	c := len(s.w)
	suf, bra, ok := s.among(c, 0, []string{"e", "é", "ê", "ç"})
	if !ok {
		return
	}
	if suf == "ç" {
		s.replace(bra, c, "c")
		return
	}
	if !s.rv(bra) {
		return
	}
	s.replace(bra, c, "")
	if bra >= 2 && ((s.w[bra-1] == 'u' && s.w[bra-2] == 'g') || (s.w[bra-1] == 'i' && s.w[bra-2] == 'c')) && s.rv(bra-1) {
		s.replace(bra-1, bra, "")
	}
}

func (s *stemPT) standardSuffix() bool {
	c := len(s.w)
	suf, bra, ok := s.among(c, 0, []string{
		"eza", "ezas", "ico", "ica", "icos", "icas", "ismo", "ismos", "ável", "ível", "ista", "istas",
		"oso", "osa", "osos", "osas", "amento", "amentos", "imento", "imentos", "adora", "ador", "aça~o",
		"adoras", "adores", "aço~es", "ante", "antes", "ância",
		"logía", "logías", "ución", "uciones", "ência", "ências", "amente", "mente", "idade", "idades",
		"iva", "ivo", "ivas", "ivos", "ira", "iras"})
	if !ok {
		return false
	}
	switch suf {
	case "logía", "logías":
		if !s.r2(bra) {
			return false
		}
		s.replace(bra, c, "log")
	case "ución", "uciones":
		if !s.r2(bra) {
			return false
		}
		s.replace(bra, c, "u")
	case "ência", "ências":
		if !s.r2(bra) {
			return false
		}
		s.replace(bra, c, "ente")
	case "amente":
		if !s.r1(bra) {
			return false
		}
		s.replace(bra, c, "")
		if suf2, b2, ok := s.among(bra, 0, []string{"iv", "os", "ic", "ad"}); ok && s.r2(b2) {
			s.replace(b2, bra, "")
			if suf2 == "iv" && s.ends(b2, 0, "at") && s.r2(b2-2) {
				s.replace(b2-2, b2, "")
			}
		}
	case "mente":
		if !s.r2(bra) {
			return false
		}
		s.replace(bra, c, "")
		if _, b2, ok := s.among(bra, 0, []string{"ante", "avel", "ível"}); ok && s.r2(b2) {
			s.replace(b2, bra, "")
		}
	case "idade", "idades":
		if !s.r2(bra) {
			return false
		}
		s.replace(bra, c, "")
		if _, b2, ok := s.among(bra, 0, []string{"abil", "ic", "iv"}); ok && s.r2(b2) {
			s.replace(b2, bra, "")
		}
	case "iva", "ivo", "ivas", "ivos":
		if !s.r2(bra) {
			return false
		}
		s.replace(bra, c, "")
		if s.ends(bra, 0, "at") && s.r2(bra-2) {
			s.replace(bra-2, bra, "")
		}
	case "ira", "iras":
		if !s.rv(bra) || bra < 1 || s.w[bra-1] != 'e' {
			return false
		}
		s.replace(bra, c, "ir")
	default:
		if !s.r2(bra) {
			return false
		}
		s.replace(bra, c, "")
	}
	return true
}

var ptVerb = []string{
	"ada", "ida", "ia", "aria", "eria", "iria", "ará", "ara", "erá", "era", "irá", "ava", "asse", "esse", "isse", "aste", "este", "iste",
	"ei", "arei", "erei", "irei", "am", "iam", "ariam", "eriam", "iriam", "aram", "eram", "iram", "avam", "em", "arem", "erem", "irem", "assem",
	"essem", "issem", "ado", "ido", "ando", "endo", "indo", "ara~o", "era~o", "ira~o", "ar", "er", "ir", "as", "adas", "idas", "ias",
	"arias", "erias", "irias", "arás", "aras", "erás", "eras", "irás", "avas", "es", "ardes", "erdes", "irdes", "ares", "eres",
	"ires", "asses", "esses", "isses", "astes", "estes", "istes", "is", "ais", "eis", "íeis", "aríeis", "eríeis", "iríeis",
	"áreis", "areis", "éreis", "ereis", "íreis", "ireis", "ásseis", "ésseis", "ísseis", "áveis", "ados", "idos",
	"ámos", "amos", "íamos", "aríamos", "eríamos", "iríamos", "áramos", "éramos", "íramos", "ávamos",
	"emos", "aremos", "eremos", "iremos", "ássemos", "êssemos", "íssemos", "imos", "armos", "ermos", "irmos", "eu", "iu", "ou",
	"ira", "iras",
}

func (s *stemPT) verbSuffix() bool {
	c := len(s.w)
	if c < s.pV {
		return false
	}
	_, bra, ok := s.among(c, s.pV, ptVerb)
	if !ok {
		return false
	}
	s.replace(bra, c, "")
	return true
}
