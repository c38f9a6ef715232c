package xapian

import "unicode/utf8"

// StemItalian is the Snowball "italian" stemmer as Xapian 1.4 ships it
// (xapian-core/languages/italian.sbl), for lowercase words; it is what
// Xapian::Stem("it") does. Words that are not valid UTF-8 come back
// unchanged.
func StemItalian(word string) string {
	if !utf8.ValidString(word) {
		return word
	}
	s := &stemIT{stemFR: stemFR{w: []rune(word)}}
	s.stem()
	return string(s.w)
}

type stemIT struct{ stemFR }

func isVowelIT(r rune) bool {
	switch r {
	case 'a', 'e', 'i', 'o', 'u', 'à', 'è', 'ì', 'ò', 'ù':
		return true
	}
	return false
}

func (s *stemIT) stem() {
	// prelude: acute accents to grave, qu to qU, u and i between vowels
	var w []rune
	for i := 0; i < len(s.w); i++ {
		r := s.w[i]
		switch r {
		case 'á':
			r = 'à'
		case 'é':
			r = 'è'
		case 'í':
			r = 'ì'
		case 'ó':
			r = 'ò'
		case 'ú':
			r = 'ù'
		case 'q':
			if i+1 < len(s.w) && s.w[i+1] == 'u' {
				w = append(w, 'q', 'U')
				i++
				continue
			}
		}
		w = append(w, r)
	}
	for i := 0; i+2 < len(w); i++ {
		if isVowelIT(w[i]) && isVowelIT(w[i+2]) {
			switch w[i+1] {
			case 'u':
				w[i+1] = 'U'
			case 'i':
				w[i+1] = 'I'
			}
		}
	}
	s.w = w
	s.pV, s.p1, s.p2 = romanceRegions(s.w, isVowelIT)
	s.attachedPronoun()
	if !s.standardSuffix() {
		s.verbSuffix()
	}
	s.vowelSuffix()
	for i, r := range s.w {
		switch r {
		case 'I':
			s.w[i] = 'i'
		case 'U':
			s.w[i] = 'u'
		}
	}
}

func (s *stemIT) attachedPronoun() {
	ket := len(s.w)
	_, bra, ok := s.among(ket, 0, []string{"ci", "gli", "la", "le", "li", "lo", "mi", "ne", "si", "ti", "vi",
		"sene", "gliela", "gliele", "glieli", "glielo", "gliene", "mela", "mele", "meli", "melo", "mene",
		"tela", "tele", "teli", "telo", "tene", "cela", "cele", "celi", "celo", "cene", "vela", "vele", "veli", "velo", "vene"})
	if !ok {
		return
	}
	suf, c, ok := s.among(bra, 0, []string{"ando", "endo", "ar", "er", "ir"})
	if !ok || !s.rv(c) {
		return
	}
	if suf == "ando" || suf == "endo" {
		s.replace(bra, ket, "")
	} else {
		s.replace(bra, ket, "e")
	}
}

func (s *stemIT) standardSuffix() bool {
	c := len(s.w)
	suf, bra, ok := s.among(c, 0, []string{
		"anza", "anze", "ico", "ici", "ica", "ice", "iche", "ichi", "ismo", "ismi", "abile", "abili", "ibile", "ibili",
		"ista", "iste", "isti", "istà", "istè", "istì", "oso", "osi", "osa", "ose", "mente", "atrice", "atrici", "ante", "anti",
		"azione", "azioni", "atore", "atori", "logia", "logie", "uzione", "uzioni", "usione", "usioni", "enza", "enze",
		"amento", "amenti", "imento", "imenti", "amente", "ità", "ivo", "ivi", "iva", "ive"})
	if !ok {
		return false
	}
	switch suf {
	case "azione", "azioni", "atore", "atori":
		if !s.r2(bra) {
			return false
		}
		s.replace(bra, c, "")
		if s.ends(bra, 0, "ic") && s.r2(bra-2) {
			s.replace(bra-2, bra, "")
		}
	case "logia", "logie":
		if !s.r2(bra) {
			return false
		}
		s.replace(bra, c, "log")
	case "uzione", "uzioni", "usione", "usioni":
		if !s.r2(bra) {
			return false
		}
		s.replace(bra, c, "u")
	case "enza", "enze":
		if !s.r2(bra) {
			return false
		}
		s.replace(bra, c, "ente")
	case "amento", "amenti", "imento", "imenti":
		if !s.rv(bra) {
			return false
		}
		s.replace(bra, c, "")
	case "amente":
		if !s.r1(bra) {
			return false
		}
		s.replace(bra, c, "")
		if suf2, b2, ok := s.among(bra, 0, []string{"iv", "os", "ic", "abil"}); ok && s.r2(b2) {
			s.replace(b2, bra, "")
			if suf2 == "iv" && s.ends(b2, 0, "at") && s.r2(b2-2) {
				s.replace(b2-2, b2, "")
			}
		}
	case "ità":
		if !s.r2(bra) {
			return false
		}
		s.replace(bra, c, "")
		if _, b2, ok := s.among(bra, 0, []string{"abil", "ic", "iv"}); ok && s.r2(b2) {
			s.replace(b2, bra, "")
		}
	case "ivo", "ivi", "iva", "ive":
		if !s.r2(bra) {
			return false
		}
		s.replace(bra, c, "")
		if s.ends(bra, 0, "at") && s.r2(bra-2) {
			b := bra - 2
			s.replace(b, bra, "")
			if s.ends(b, 0, "ic") && s.r2(b-2) {
				s.replace(b-2, b, "")
			}
		}
	default: // anza ... anti
		if !s.r2(bra) {
			return false
		}
		s.replace(bra, c, "")
	}
	return true
}

var itVerb = []string{
	"ammo", "ando", "ano", "are", "arono", "asse", "assero", "assi", "assimo", "ata", "ate", "ati", "ato", "ava", "avamo", "avano", "avate",
	"avi", "avo", "emmo", "enda", "ende", "endi", "endo", "erà", "erai", "eranno", "ere", "erebbe", "erebbero", "erei", "eremmo", "eremo",
	"ereste", "eresti", "erete", "erò", "erono", "essero", "ete", "eva", "evamo", "evano", "evate", "evi", "evo", "Yamo", "iamo", "immo",
	"irà", "irai", "iranno", "ire", "irebbe", "irebbero", "irei", "iremmo", "iremo", "ireste", "iresti", "irete", "irò", "irono",
	"isca", "iscano", "isce", "isci", "isco", "iscono", "issero", "ita", "ite", "iti", "ito", "iva", "ivamo", "ivano", "ivate", "ivi", "ivo",
	"ono", "uta", "ute", "uti", "uto", "ar", "ir",
}

func (s *stemIT) verbSuffix() {
	c := len(s.w)
	if c < s.pV {
		return
	}
	if _, bra, ok := s.among(c, s.pV, itVerb); ok {
		s.replace(bra, c, "")
	}
}

func (s *stemIT) vowelSuffix() {
	c := len(s.w)
	if c >= 1 && s.rv(c-1) && isAEIO(s.w[c-1]) {
		s.replace(c-1, c, "")
		c--
		if c >= 1 && s.w[c-1] == 'i' && s.rv(c-1) {
			s.replace(c-1, c, "")
		}
	}
	c = len(s.w)
	if c >= 2 && s.w[c-1] == 'h' && (s.w[c-2] == 'c' || s.w[c-2] == 'g') && s.rv(c-2) {
		s.replace(c-1, c, "")
	}
}

func isAEIO(r rune) bool {
	switch r {
	case 'a', 'e', 'i', 'o', 'à', 'è', 'ì', 'ò':
		return true
	}
	return false
}
