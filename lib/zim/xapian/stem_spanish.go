package xapian

import "unicode/utf8"

// StemSpanish is the Snowball "spanish" stemmer as Xapian 1.4 ships it
// (xapian-core/languages/spanish.sbl), for lowercase words; it is what
// Xapian::Stem("es") does. Words that are not valid UTF-8 come back
// unchanged.
func StemSpanish(word string) string {
	if !utf8.ValidString(word) {
		return word
	}
	s := &stemES{stemFR: stemFR{w: []rune(word)}}
	s.stem()
	return string(s.w)
}

// stemES reuses stemFR's suffix helpers (ends, among, replace, regions).
type stemES struct{ stemFR }

func isVowelES(r rune) bool {
	switch r {
	case 'a', 'e', 'i', 'o', 'u', 'á', 'é', 'í', 'ó', 'ú', 'ü':
		return true
	}
	return false
}

func (s *stemES) stem() {
	s.markRegions()
	s.attachedPronoun()
	if !s.standardSuffix() && !s.yVerbSuffix() {
		s.verbSuffix()
	}
	s.residualSuffix()
	for i, r := range s.w { // postlude
		switch r {
		case 'á':
			s.w[i] = 'a'
		case 'é':
			s.w[i] = 'e'
		case 'í':
			s.w[i] = 'i'
		case 'ó':
			s.w[i] = 'o'
		case 'ú':
			s.w[i] = 'u'
		}
	}
}

func (s *stemES) markRegions() { s.pV, s.p1, s.p2 = romanceRegions(s.w, isVowelES) }

// romanceRegions is the mark_regions of the Spanish, Italian and
// Portuguese stemmers: RV (after the first vowel-consonant-vowel shape, as
// Snowball defines it) and the usual R1, R2.
func romanceRegions(w []rune, isV func(rune) bool) (pV, p1, p2 int) {
	n := len(w)
	pV, p1, p2 = n, n, n
	v := func(i int) bool { return i < n && isV(w[i]) }
	nv := func(i int) bool { return i < n && !isV(w[i]) }
	gopastV := func(i int) (int, bool) {
		for ; i < n; i++ {
			if isV(w[i]) {
				return i + 1, true
			}
		}
		return 0, false
	}
	gopastNV := func(i int) (int, bool) {
		for ; i < n; i++ {
			if !isV(w[i]) {
				return i + 1, true
			}
		}
		return 0, false
	}
	switch {
	case v(0):
		if nv(1) {
			if p, ok := gopastV(2); ok {
				pV = p
				break
			}
		}
		if v(1) {
			if p, ok := gopastNV(2); ok {
				pV = p
			}
		}
	case nv(0):
		if nv(1) {
			if p, ok := gopastV(2); ok {
				pV = p
				break
			}
		}
		if v(1) && n >= 3 {
			pV = 3
		}
	}
	gopast := func(i int) (int, bool) {
		for i < n && !isV(w[i]) {
			i++
		}
		for i < n && isV(w[i]) {
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
	p1 = c
	if c2, ok := gopast(c); ok {
		p2 = c2
	}
	return
}

func (s *stemES) attachedPronoun() {
	ket := len(s.w)
	_, bra, ok := s.among(ket, 0, []string{"me", "se", "sela", "selo", "selas", "selos", "la", "le", "lo", "las", "les", "los", "nos"})
	if !ok {
		return
	}
	suf, c, ok := s.among(bra, 0, []string{"iéndo", "ándo", "ár", "ér", "ír", "ando", "iendo", "ar", "er", "ir", "yendo"})
	if !ok || !s.rv(c) {
		return
	}
	switch suf {
	case "iéndo":
		s.replace(c, ket, "iendo")
	case "ándo":
		s.replace(c, ket, "ando")
	case "ár":
		s.replace(c, ket, "ar")
	case "ér":
		s.replace(c, ket, "er")
	case "ír":
		s.replace(c, ket, "ir")
	case "yendo":
		if c >= 1 && s.w[c-1] == 'u' {
			s.replace(bra, ket, "")
		}
	default:
		s.replace(bra, ket, "")
	}
}

func (s *stemES) standardSuffix() bool {
	c := len(s.w)
	suf, bra, ok := s.among(c, 0, []string{
		"anza", "anzas", "ico", "ica", "icos", "icas", "ismo", "ismos", "able", "ables", "ible", "ibles",
		"ista", "istas", "oso", "osa", "osos", "osas", "amiento", "amientos", "imiento", "imientos",
		"adora", "ador", "ación", "adoras", "adores", "aciones", "ante", "antes", "ancia", "ancias",
		"logía", "logías", "ución", "uciones", "encia", "encias", "amente", "mente", "idad", "idades",
		"iva", "ivo", "ivas", "ivos"})
	if !ok {
		return false
	}
	switch suf {
	case "anza", "anzas", "ico", "ica", "icos", "icas", "ismo", "ismos", "able", "ables", "ible", "ibles",
		"ista", "istas", "oso", "osa", "osos", "osas", "amiento", "amientos", "imiento", "imientos":
		if !s.r2(bra) {
			return false
		}
		s.replace(bra, c, "")
	case "adora", "ador", "ación", "adoras", "adores", "aciones", "ante", "antes", "ancia", "ancias":
		if !s.r2(bra) {
			return false
		}
		s.replace(bra, c, "")
		if s.ends(bra, 0, "ic") && s.r2(bra-2) {
			s.replace(bra-2, bra, "")
		}
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
	case "encia", "encias":
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
		if _, b2, ok := s.among(bra, 0, []string{"ante", "able", "ible"}); ok && s.r2(b2) {
			s.replace(b2, bra, "")
		}
	case "idad", "idades":
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
	}
	return true
}

func (s *stemES) yVerbSuffix() bool {
	c := len(s.w)
	if c < s.pV {
		return false
	}
	_, bra, ok := s.among(c, s.pV, []string{"ya", "ye", "yan", "yen", "yeron", "yendo", "yo", "yó", "yas", "yes", "yais", "yamos"})
	if !ok || bra < 1 || s.w[bra-1] != 'u' {
		return false
	}
	s.replace(bra, c, "")
	return true
}

var esVerb = []string{
	"arían", "arías", "arán", "arás", "aríais", "aría", "aréis", "aríamos", "aremos", "ará", "aré",
	"erían", "erías", "erán", "erás", "eríais", "ería", "eréis", "eríamos", "eremos", "erá", "eré",
	"irían", "irías", "irán", "irás", "iríais", "iría", "iréis", "iríamos", "iremos", "irá", "iré",
	"aba", "ada", "ida", "ía", "ara", "iera", "ad", "ed", "id", "ase", "iese", "aste", "iste", "an", "aban", "ían",
	"aran", "ieran", "asen", "iesen", "aron", "ieron", "ado", "ido", "ando", "iendo", "ió", "ar", "er", "ir", "as",
	"abas", "adas", "idas", "ías", "aras", "ieras", "ases", "ieses", "ís", "áis", "abais", "íais", "arais",
	"ierais", "aseis", "ieseis", "asteis", "isteis", "ados", "idos", "amos", "ábamos", "íamos", "imos",
	"áramos", "iéramos", "iésemos", "ásemos",
}

func (s *stemES) verbSuffix() bool {
	c := len(s.w)
	if c < s.pV {
		return false
	}
	suf, bra, ok := s.among(c, s.pV, append([]string{"en", "es", "éis", "emos"}, esVerb...))
	if !ok {
		return false
	}
	switch suf {
	case "en", "es", "éis", "emos":
		if bra >= 2 && s.w[bra-1] == 'u' && s.w[bra-2] == 'g' {
			bra--
		}
	}
	s.replace(bra, c, "")
	return true
}

func (s *stemES) residualSuffix() {
	c := len(s.w)
	suf, bra, ok := s.among(c, 0, []string{"os", "a", "o", "á", "í", "ó", "e", "é"})
	if !ok || !s.rv(bra) {
		return
	}
	s.replace(bra, c, "")
	if (suf == "e" || suf == "é") && s.ends(bra, 0, "u") && s.ends(bra-1, 0, "g") && s.rv(bra-1) {
		s.replace(bra-1, bra, "")
	}
}
