package xapian

import "unicode/utf8"

// StemRussian is the Snowball "russian" stemmer as Xapian 1.4 ships it
// (xapian-core/languages/russian.sbl), for lowercase Cyrillic words; it
// is what Xapian::Stem("ru") does. Words that are not valid UTF-8 come
// back unchanged.
func StemRussian(word string) string {
	if !utf8.ValidString(word) {
		return word
	}
	s := &stemRU{stemFR: stemFR{w: []rune(word)}}
	s.stem()
	return string(s.w)
}

type stemRU struct{ stemFR }

func isVowelRU(r rune) bool {
	switch r {
	case 'а', 'е', 'и', 'о', 'у', 'ы', 'э', 'ю', 'я':
		return true
	}
	return false
}

var (
	ruGerund1     = []string{"в", "вши", "вшись"}
	ruGerund2     = []string{"ив", "ивши", "ившись", "ыв", "ывши", "ывшись"}
	ruAdjective   = []string{"ее", "ие", "ые", "ое", "ими", "ыми", "ей", "ий", "ый", "ой", "ем", "им", "ым", "ом", "его", "ого", "ему", "ому", "их", "ых", "ую", "юю", "ая", "яя", "ою", "ею"}
	ruParticiple1 = []string{"ем", "нн", "вш", "ющ", "щ"}
	ruParticiple2 = []string{"ивш", "ывш", "ующ"}
	ruVerb1       = []string{"ла", "на", "ете", "йте", "ли", "й", "л", "ем", "н", "ло", "но", "ет", "ют", "ны", "ть", "ешь", "нно"}
	ruVerb2       = []string{"ила", "ыла", "ена", "ейте", "уйте", "ите", "или", "ыли", "ей", "уй", "ил", "ыл", "им", "ым", "ен", "ило", "ыло", "ено", "ят", "ует", "уют", "ит", "ыт", "ены", "ить", "ыть", "ишь", "ую", "ю"}
	ruNoun        = []string{"а", "ев", "ов", "ие", "ье", "е", "иями", "ями", "ами", "еи", "ии", "и", "ией", "ей", "ой", "ий", "й", "иям", "ям", "ием", "ем", "ам", "ом", "о", "у", "ах", "иях", "ях", "ы", "ь", "ию", "ью", "ю", "ия", "ья", "я"}
)

func (s *stemRU) stem() {
	w := s.w
	n := len(w)
	s.pV, s.p2 = n, n
	i := 0
	for i < n && !isVowelRU(w[i]) {
		i++
	}
	if i < n {
		s.pV = i + 1
		j := s.pV
		for j < n && isVowelRU(w[j]) {
			j++
		}
		if j < n {
			k := j + 1
			for k < n && !isVowelRU(w[k]) {
				k++
			}
			if k < n {
				l := k + 1
				for l < n && isVowelRU(w[l]) {
					l++
				}
				if l < n {
					s.p2 = l + 1
				}
			}
		}
	}
	lb := s.pV
	if !s.perfectiveGerund(lb) {
		// try reflexive
		if _, bra, ok := s.among(len(s.w), lb, []string{"ся", "сь"}); ok {
			s.replace(bra, len(s.w), "")
		}
		if !s.adjectival(lb) && !s.verb(lb) {
			if _, bra, ok := s.among(len(s.w), lb, ruNoun); ok {
				s.replace(bra, len(s.w), "")
			}
		}
	}
	if s.ends(len(s.w), lb, "и") {
		s.replace(len(s.w)-1, len(s.w), "")
	}
	if _, bra, ok := s.among(len(s.w), lb, []string{"ост", "ость"}); ok && s.r2(bra) {
		s.replace(bra, len(s.w), "")
	}
	// tidy_up
	c := len(s.w)
	suf, bra, ok := s.among(c, lb, []string{"ейш", "ейше", "н", "ь"})
	if !ok {
		return
	}
	switch suf {
	case "ейш", "ейше":
		s.replace(bra, c, "")
		if s.ends(bra, lb, "нн") {
			s.replace(bra-1, bra, "")
		}
	case "н":
		if s.ends(bra, lb, "н") {
			s.replace(bra, c, "")
		}
	case "ь":
		s.replace(bra, c, "")
	}
}

// aOrYaBefore reports whether the suffix starting at bra follows а or я
// (inside the region).
func (s *stemRU) aOrYaBefore(bra, lb int) bool {
	return bra-1 >= lb && (s.w[bra-1] == 'а' || s.w[bra-1] == 'я')
}

// twoGroups removes the longest suffix of g1 (when it follows а or я) or
// of g2; false when none applies.
func (s *stemRU) twoGroups(lb int, g1, g2 []string) bool {
	c := len(s.w)
	suf, bra, ok := s.among(c, lb, append(append([]string(nil), g1...), g2...))
	if !ok {
		return false
	}
	if contains(g1, suf) && !s.aOrYaBefore(bra, lb) {
		return false
	}
	s.replace(bra, c, "")
	return true
}

func (s *stemRU) perfectiveGerund(lb int) bool { return s.twoGroups(lb, ruGerund1, ruGerund2) }
func (s *stemRU) verb(lb int) bool             { return s.twoGroups(lb, ruVerb1, ruVerb2) }

func (s *stemRU) adjectival(lb int) bool {
	c := len(s.w)
	_, bra, ok := s.among(c, lb, ruAdjective)
	if !ok {
		return false
	}
	s.replace(bra, c, "")
	s.twoGroups(lb, ruParticiple1, ruParticiple2)
	return true
}
