package xapian

import "unicode/utf8"

// StemEnglish is the Snowball "english" (Porter2) stemmer as Xapian 1.4
// ships it (xapian-core/languages/english.sbl), for lowercase words; it is
// what Xapian::Stem("en") does. Words that are not valid UTF-8 come back
// unchanged.
func StemEnglish(word string) string {
	if !utf8.ValidString(word) {
		return word
	}
	s := &stemEN{w: []rune(word)}
	return s.stem()
}

type stemEN struct {
	w      []rune
	p1, p2 int
	yFound bool
}

func isVowelEN(r rune) bool {
	switch r {
	case 'a', 'e', 'i', 'o', 'u', 'y':
		return true
	}
	return false
}

func hasSuffix(w []rune, suf string) bool {
	i := len(w)
	for len(suf) > 0 {
		r, n := utf8.DecodeLastRuneInString(suf)
		suf = suf[:len(suf)-n]
		i--
		if i < 0 || w[i] != r {
			return false
		}
	}
	return true
}

// longest returns the longest of sufs that w ends with ("" when none).
func longest(w []rune, sufs ...string) string {
	best := ""
	found := false
	for _, s := range sufs {
		if hasSuffix(w, s) && (!found || len(s) > len(best)) {
			best, found = s, true
		}
	}
	if !found {
		return "\x00"
	}
	return best
}

func (s *stemEN) replace(n int, with string) {
	s.w = append(s.w[:len(s.w)-n], []rune(with)...)
}

// shortv reports whether the word before position c ends in a short
// syllable: non-vowel-other-than-wxY, vowel, non-vowel; or, at the start
// of the word, vowel, non-vowel.
func (s *stemEN) shortv(c int) bool {
	w := s.w
	if c >= 3 {
		a, b, d := w[c-1], w[c-2], w[c-3]
		if !isVowelEN(a) && a != 'w' && a != 'x' && a != 'Y' && isVowelEN(b) && !isVowelEN(d) {
			return true
		}
	}
	return c == 2 && !isVowelEN(w[1]) && isVowelEN(w[0])
}

var exception1EN = map[string]string{
	"skis": "ski", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie",
	"idly": "idl", "gently": "gentl", "ugly": "ugli", "early": "earli", "only": "onli", "singly": "singl",
	"sky": "sky", "news": "news", "howe": "howe", "atlas": "atlas", "cosmos": "cosmos", "bias": "bias", "andes": "andes",
}

var exception2EN = map[string]bool{
	"inning": true, "outing": true, "canning": true, "herring": true, "earring": true,
	"proceed": true, "exceed": true, "succeed": true,
}

func (s *stemEN) stem() string {
	if r, ok := exception1EN[string(s.w)]; ok {
		return r
	}
	if len(s.w) < 3 {
		return string(s.w)
	}
	s.prelude()
	s.markRegions()
	s.step1a()
	if !exception2EN[string(s.w)] {
		s.step1b()
		s.step1c()
		s.step2()
		s.step3()
		s.step4()
		s.step5()
	}
	if s.yFound {
		for i, r := range s.w {
			if r == 'Y' {
				s.w[i] = 'y'
			}
		}
	}
	return string(s.w)
}

func (s *stemEN) prelude() {
	if s.w[0] == '\'' {
		s.w = s.w[1:]
	}
	if len(s.w) > 0 && s.w[0] == 'y' {
		s.w[0] = 'Y'
		s.yFound = true
	}
	for i := 1; i < len(s.w); i++ {
		if s.w[i] == 'y' && isVowelEN(s.w[i-1]) {
			s.w[i] = 'Y'
			s.yFound = true
		}
	}
}

// gopastVN returns the position after the first non-vowel that follows a
// vowel, from i on (len(w) when there is none).
func gopastVN(w []rune, i int) (int, bool) {
	for i < len(w) && !isVowelEN(w[i]) {
		i++
	}
	if i == len(w) {
		return len(w), false
	}
	for i < len(w) && isVowelEN(w[i]) {
		i++
	}
	if i == len(w) {
		return len(w), false
	}
	return i + 1, true
}

func (s *stemEN) markRegions() {
	n := len(s.w)
	s.p1, s.p2 = n, n
	w := string(s.w)
	var p1 int
	switch {
	case len(w) >= 5 && w[:5] == "gener":
		p1 = 5
	case len(w) >= 6 && w[:6] == "commun":
		p1 = 6
	case len(w) >= 5 && w[:5] == "arsen":
		p1 = 5
	default:
		var ok bool
		if p1, ok = gopastVN(s.w, 0); !ok {
			return
		}
	}
	s.p1 = p1
	if p2, ok := gopastVN(s.w, p1); ok {
		s.p2 = p2
	}
}

func (s *stemEN) r1(c int) bool { return s.p1 <= c }
func (s *stemEN) r2(c int) bool { return s.p2 <= c }

// hasVowelBefore reports whether w[:c] contains a vowel.
func hasVowelBefore(w []rune, c int) bool {
	for i := 0; i < c; i++ {
		if isVowelEN(w[i]) {
			return true
		}
	}
	return false
}

func (s *stemEN) step1a() {
	switch longest(s.w, "'", "'s", "'s'") {
	case "'":
		s.replace(1, "")
	case "'s":
		s.replace(2, "")
	case "'s'":
		s.replace(3, "")
	}
	switch suf := longest(s.w, "sses", "ied", "ies", "s", "us", "ss"); suf {
	case "sses":
		s.replace(4, "ss")
	case "ied", "ies":
		if len(s.w)-3 >= 2 {
			s.replace(3, "i")
		} else {
			s.replace(3, "ie")
		}
	case "s":
		c := len(s.w) - 1
		// next: skip the letter before the s; gopast v: a vowel before it
		if c >= 1 && hasVowelBefore(s.w, c-1) {
			s.replace(1, "")
		}
	}
}

func (s *stemEN) step1b() {
	switch suf := longest(s.w, "eed", "eedly", "ed", "edly", "ing", "ingly"); suf {
	case "eed", "eedly":
		c := len(s.w) - len(suf)
		if s.r1(c) {
			s.replace(len(suf), "ee")
		}
	case "ed", "edly", "ing", "ingly":
		c := len(s.w) - len(suf)
		if !hasVowelBefore(s.w, c) {
			return
		}
		s.replace(len(suf), "")
		switch longest(s.w, "at", "bl", "iz", "bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt", "") {
		case "at", "bl", "iz":
			s.w = append(s.w, 'e')
		case "bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt":
			s.w = s.w[:len(s.w)-1]
		case "":
			if len(s.w) == s.p1 && s.shortv(len(s.w)) {
				s.w = append(s.w, 'e')
			}
		}
	}
}

func (s *stemEN) step1c() {
	n := len(s.w)
	if n == 0 || (s.w[n-1] != 'y' && s.w[n-1] != 'Y') {
		return
	}
	// a non-vowel before the y, which is not the first letter
	if n >= 3 && !isVowelEN(s.w[n-2]) {
		s.w[n-1] = 'i'
	}
}

func (s *stemEN) step2() {
	suf := longest(s.w, "tional", "enci", "anci", "abli", "entli", "izer", "ization", "ational", "ation", "ator",
		"alism", "aliti", "alli", "fulness", "ousli", "ousness", "iveness", "iviti", "biliti", "bli", "ogi", "fulli", "lessli", "li")
	if suf == "\x00" {
		return
	}
	c := len(s.w) - len([]rune(suf))
	if !s.r1(c) {
		return
	}
	n := len([]rune(suf))
	switch suf {
	case "tional":
		s.replace(n, "tion")
	case "enci":
		s.replace(n, "ence")
	case "anci":
		s.replace(n, "ance")
	case "abli":
		s.replace(n, "able")
	case "entli":
		s.replace(n, "ent")
	case "izer", "ization":
		s.replace(n, "ize")
	case "ational", "ation", "ator":
		s.replace(n, "ate")
	case "alism", "aliti", "alli":
		s.replace(n, "al")
	case "fulness":
		s.replace(n, "ful")
	case "ousli", "ousness":
		s.replace(n, "ous")
	case "iveness", "iviti":
		s.replace(n, "ive")
	case "biliti", "bli":
		s.replace(n, "ble")
	case "ogi":
		if c >= 1 && s.w[c-1] == 'l' {
			s.replace(n, "og")
		}
	case "fulli":
		s.replace(n, "ful")
	case "lessli":
		s.replace(n, "less")
	case "li":
		if c >= 1 {
			switch s.w[c-1] {
			case 'c', 'd', 'e', 'g', 'h', 'k', 'm', 'n', 'r', 't':
				s.replace(n, "")
			}
		}
	}
}

func (s *stemEN) step3() {
	suf := longest(s.w, "tional", "ational", "alize", "icate", "iciti", "ical", "ful", "ness", "ative")
	if suf == "\x00" {
		return
	}
	n := len([]rune(suf))
	c := len(s.w) - n
	if !s.r1(c) {
		return
	}
	switch suf {
	case "tional":
		s.replace(n, "tion")
	case "ational":
		s.replace(n, "ate")
	case "alize":
		s.replace(n, "al")
	case "icate", "iciti", "ical":
		s.replace(n, "ic")
	case "ful", "ness":
		s.replace(n, "")
	case "ative":
		if s.r2(c) {
			s.replace(n, "")
		}
	}
}

func (s *stemEN) step4() {
	suf := longest(s.w, "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement",
		"ment", "ent", "ism", "ate", "iti", "ous", "ive", "ize", "ion")
	if suf == "\x00" {
		return
	}
	n := len([]rune(suf))
	c := len(s.w) - n
	if !s.r2(c) {
		return
	}
	if suf == "ion" {
		if c >= 1 && (s.w[c-1] == 's' || s.w[c-1] == 't') {
			s.replace(n, "")
		}
		return
	}
	s.replace(n, "")
}

func (s *stemEN) step5() {
	switch longest(s.w, "e", "l") {
	case "e":
		c := len(s.w) - 1
		if s.r2(c) || (s.r1(c) && !s.shortv(c)) {
			s.replace(1, "")
		}
	case "l":
		c := len(s.w) - 1
		if s.r2(c) && c >= 1 && s.w[c-1] == 'l' {
			s.replace(1, "")
		}
	}
}
