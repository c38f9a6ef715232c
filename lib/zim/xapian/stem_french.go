package xapian

import "unicode/utf8"

// StemFrench is the Snowball "french" stemmer as Xapian 1.4 ships it
// (xapian-core/languages/french.sbl), for lowercase words; it is what
// Xapian::Stem("fr") does. Words that are not valid UTF-8 come back
// unchanged.
func StemFrench(word string) string {
	if !utf8.ValidString(word) {
		return word
	}
	s := &stemFR{w: []rune(word)}
	s.stem()
	return string(s.w)
}

type stemFR struct {
	w          []rune
	pV, p1, p2 int
}

func isVowelFR(r rune) bool {
	switch r {
	case 'a', 'e', 'i', 'o', 'u', 'y', 'â', 'à', 'ë', 'é', 'ê', 'è', 'ï', 'î', 'ô', 'û', 'ù':
		return true
	}
	return false
}

// ends reports whether w[:c] ends with suf, the suffix starting at or
// after lb.
func (s *stemFR) ends(c, lb int, suf string) bool {
	i := c
	for len(suf) > 0 {
		r, n := utf8.DecodeLastRuneInString(suf)
		suf = suf[:len(suf)-n]
		i--
		if i < lb || s.w[i] != r {
			return false
		}
	}
	return true
}

// among returns the longest of list that w[:c] ends with (within lb).
func (s *stemFR) among(c, lb int, list []string) (string, int, bool) {
	best, n, found := "", 0, false
	for _, suf := range list {
		if l := utf8.RuneCountInString(suf); s.ends(c, lb, suf) && (!found || l > n) {
			best, n, found = suf, l, true
		}
	}
	return best, c - n, found
}

func (s *stemFR) replace(bra, ket int, with string) {
	rest := append([]rune(with), s.w[ket:]...)
	s.w = append(s.w[:bra], rest...)
}

func (s *stemFR) rv(c int) bool { return s.pV <= c }
func (s *stemFR) r1(c int) bool { return s.p1 <= c }
func (s *stemFR) r2(c int) bool { return s.p2 <= c }

func (s *stemFR) stem() {
	s.prelude()
	s.markRegions()
	if s.standardSuffix() || s.iVerbSuffix() || s.verbSuffix() {
		if n := len(s.w); n > 0 {
			switch s.w[n-1] {
			case 'Y':
				s.w[n-1] = 'i'
			case 'ç':
				s.w[n-1] = 'c'
			}
		}
	} else {
		s.residualSuffix()
	}
	s.unDouble()
	s.unAccent()
	for i, r := range s.w { // postlude
		switch r {
		case 'I':
			s.w[i] = 'i'
		case 'U':
			s.w[i] = 'u'
		case 'Y':
			s.w[i] = 'y'
		}
	}
}

// prelude marks u and i between vowels, y next to a vowel and u after q
// as consonants (U, I, Y).
func (s *stemFR) prelude() {
	w := s.w
	for i := 0; i < len(w); i++ {
		switch {
		case isVowelFR(w[i]) && i+1 < len(w) && (w[i+1] == 'u' || w[i+1] == 'i') && i+2 < len(w) && isVowelFR(w[i+2]):
			w[i+1] -= 'a' - 'A'
		case isVowelFR(w[i]) && i+1 < len(w) && w[i+1] == 'y':
			w[i+1] = 'Y'
		case w[i] == 'y' && i+1 < len(w) && isVowelFR(w[i+1]):
			w[i] = 'Y'
		case w[i] == 'q' && i+1 < len(w) && w[i+1] == 'u':
			w[i+1] = 'U'
		}
	}
}

func (s *stemFR) markRegions() {
	w := s.w
	n := len(w)
	s.pV, s.p1, s.p2 = n, n, n
	switch {
	case n >= 3 && isVowelFR(w[0]) && isVowelFR(w[1]):
		s.pV = 3
	case n >= 3 && (string(w[:3]) == "par" || string(w[:3]) == "col" || string(w[:3]) == "tap"):
		s.pV = 3
	case n >= 1:
		for i := 1; i < n; i++ {
			if isVowelFR(w[i]) {
				s.pV = i + 1
				break
			}
		}
	}
	gopast := func(i int) (int, bool) {
		for i < n && !isVowelFR(w[i]) {
			i++
		}
		for i < n && isVowelFR(w[i]) {
			i++
		}
		if i >= n {
			return n, false
		}
		return i + 1, true
	}
	p1, ok := gopast(0)
	if !ok {
		return
	}
	s.p1 = p1
	if p2, ok := gopast(p1); ok {
		s.p2 = p2
	}
}

var frStandard = []string{
	"ance", "iqUe", "isme", "able", "iste", "eux", "ances", "iqUes", "ismes", "ables", "istes",
	"atrice", "ateur", "ation", "atrices", "ateurs", "ations",
	"logie", "logies", "usion", "ution", "usions", "utions", "ence", "ences",
	"ement", "ements", "ité", "ités", "if", "ive", "ifs", "ives", "eaux", "aux", "euse", "euses",
	"issement", "issements", "amment", "emment", "ment", "ments",
}

func (s *stemFR) standardSuffix() bool {
	c := len(s.w)
	suf, bra, ok := s.among(c, 0, frStandard)
	if !ok {
		return false
	}
	del := func() { s.replace(bra, c, "") }
	switch suf {
	case "ance", "iqUe", "isme", "able", "iste", "eux", "ances", "iqUes", "ismes", "ables", "istes":
		if !s.r2(bra) {
			return false
		}
		del()
	case "atrice", "ateur", "ation", "atrices", "ateurs", "ations":
		if !s.r2(bra) {
			return false
		}
		del()
		if s.ends(bra, 0, "ic") {
			if b := bra - 2; s.r2(b) {
				s.replace(b, bra, "")
			} else {
				s.replace(b, bra, "iqU")
			}
		}
	case "logie", "logies":
		if !s.r2(bra) {
			return false
		}
		s.replace(bra, c, "log")
	case "usion", "ution", "usions", "utions":
		if !s.r2(bra) {
			return false
		}
		s.replace(bra, c, "u")
	case "ence", "ences":
		if !s.r2(bra) {
			return false
		}
		s.replace(bra, c, "ent")
	case "ement", "ements":
		if !s.rv(bra) {
			return false
		}
		del()
		c2 := bra
		suf2, b2, ok := s.among(c2, 0, []string{"iv", "eus", "abl", "iqU", "ièr", "Ièr"})
		if !ok {
			break
		}
		switch suf2 {
		case "iv":
			if s.r2(b2) {
				s.replace(b2, c2, "")
				if s.ends(b2, 0, "at") && s.r2(b2-2) {
					s.replace(b2-2, b2, "")
				}
			}
		case "eus":
			if s.r2(b2) {
				s.replace(b2, c2, "")
			} else if s.r1(b2) {
				s.replace(b2, c2, "eux")
			}
		case "abl", "iqU":
			if s.r2(b2) {
				s.replace(b2, c2, "")
			}
		case "ièr", "Ièr":
			if s.rv(b2) {
				s.replace(b2, c2, "i")
			}
		}
	case "ité", "ités":
		if !s.r2(bra) {
			return false
		}
		del()
		c2 := bra
		suf2, b2, ok := s.among(c2, 0, []string{"abil", "ic", "iv"})
		if !ok {
			break
		}
		switch suf2 {
		case "abil":
			if s.r2(b2) {
				s.replace(b2, c2, "")
			} else {
				s.replace(b2, c2, "abl")
			}
		case "ic":
			if s.r2(b2) {
				s.replace(b2, c2, "")
			} else {
				s.replace(b2, c2, "iqU")
			}
		case "iv":
			if s.r2(b2) {
				s.replace(b2, c2, "")
			}
		}
	case "if", "ive", "ifs", "ives":
		if !s.r2(bra) {
			return false
		}
		del()
		if s.ends(bra, 0, "at") && s.r2(bra-2) {
			b := bra - 2
			s.replace(b, bra, "")
			if s.ends(b, 0, "ic") {
				if s.r2(b - 2) {
					s.replace(b-2, b, "")
				} else {
					s.replace(b-2, b, "iqU")
				}
			}
		}
	case "eaux":
		s.replace(bra, c, "eau")
	case "aux":
		if !s.r1(bra) {
			return false
		}
		s.replace(bra, c, "al")
	case "euse", "euses":
		if s.r2(bra) {
			del()
		} else if s.r1(bra) {
			s.replace(bra, c, "eux")
		} else {
			return false
		}
	case "issement", "issements":
		if !s.r1(bra) || bra < 1 || isVowelFR(s.w[bra-1]) {
			return false
		}
		del()
	case "amment":
		if s.rv(bra) {
			s.replace(bra, c, "ant")
		}
		return false
	case "emment":
		if s.rv(bra) {
			s.replace(bra, c, "ent")
		}
		return false
	case "ment", "ments":
		if bra >= 1 && isVowelFR(s.w[bra-1]) && s.rv(bra-1) {
			del()
		}
		return false
	}
	return true
}

var frIVerb = []string{
	"îmes", "ît", "îtes", "i", "ie", "ies", "ir", "ira", "irai",
	"iraIent", "irais", "irait", "iras", "irent", "irez", "iriez",
	"irions", "irons", "iront", "is", "issaIent", "issais", "issait",
	"issant", "issante", "issantes", "issants", "isse", "issent", "isses",
	"issez", "issiez", "issions", "issons", "it",
}

func (s *stemFR) iVerbSuffix() bool {
	c := len(s.w)
	if c < s.pV {
		return false
	}
	lb := s.pV
	_, bra, ok := s.among(c, lb, frIVerb)
	if !ok || bra-1 < lb || isVowelFR(s.w[bra-1]) {
		return false
	}
	s.replace(bra, c, "")
	return true
}

var frVerbDelete = []string{
	"é", "ée", "ées", "és", "èrent", "er", "era", "erai",
	"eraIent", "erais", "erait", "eras", "erez", "eriez", "erions",
	"erons", "eront", "ez", "iez",
}

var frVerbA = []string{
	"âmes", "ât", "âtes", "a", "ai", "aIent", "ais", "ait", "ant",
	"ante", "antes", "ants", "as", "asse", "assent", "asses", "assiez",
	"assions",
}

func (s *stemFR) verbSuffix() bool {
	c := len(s.w)
	if c < s.pV {
		return false
	}
	lb := s.pV
	all := append(append([]string{"ions"}, frVerbDelete...), frVerbA...)
	suf, bra, ok := s.among(c, lb, all)
	if !ok {
		return false
	}
	switch {
	case suf == "ions":
		if !s.r2(bra) {
			return false
		}
	case contains(frVerbA, suf):
		if bra-1 >= lb && s.w[bra-1] == 'e' {
			bra--
		}
	}
	s.replace(bra, c, "")
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (s *stemFR) residualSuffix() {
	c := len(s.w)
	if c >= 2 && s.w[c-1] == 's' {
		switch s.w[c-2] {
		case 'a', 'i', 'o', 'u', 'è', 's':
		default:
			s.w = s.w[:c-1]
		}
	}
	c = len(s.w)
	if c < s.pV {
		return
	}
	lb := s.pV
	suf, bra, ok := s.among(c, lb, []string{"ion", "ier", "ière", "Ier", "Ière", "e", "ë"})
	if !ok {
		return
	}
	switch suf {
	case "ion":
		if s.r2(bra) && bra-1 >= lb && (s.w[bra-1] == 's' || s.w[bra-1] == 't') {
			s.replace(bra, c, "")
		}
	case "ier", "ière", "Ier", "Ière":
		s.replace(bra, c, "i")
	case "e":
		s.replace(bra, c, "")
	case "ë":
		if s.ends(bra, lb, "gu") {
			s.replace(bra, c, "")
		}
	}
}

func (s *stemFR) unDouble() {
	if _, _, ok := s.among(len(s.w), 0, []string{"enn", "onn", "ett", "ell", "eill"}); ok {
		s.w = s.w[:len(s.w)-1]
	}
}

func (s *stemFR) unAccent() {
	i := len(s.w) - 1
	n := 0
	for i >= 0 && !isVowelFR(s.w[i]) {
		i--
		n++
	}
	if n >= 1 && i >= 0 && (s.w[i] == 'é' || s.w[i] == 'è') {
		s.w[i] = 'e'
	}
}
