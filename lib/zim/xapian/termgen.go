package xapian

import (
	"sync"
	"unicode"
)

// The term generator of Xapian 1.4 (xapian-core/queryparser/
// termgenerator_internal.cc, parse_terms and index_text), which libzim
// uses to turn text into terms: words of Unicode word characters
// (letters, marks, numbers, connector punctuation), lowercased; acronyms
// "U.S.A." as "usa"; infixes kept inside a word (' & · ״ ‧, and between
// digits , . ; and a few others); up to three trailing + or # ("c++",
// "c#"); invalid UTF-8 read as ISO-8859-1, as Xapian's Utf8Iterator does.
// With CJKNgram (FLAG_CJK_NGRAM, word-breaker.cc), runs of CJK characters
// become unigrams (with positions) and bigrams (without). Character classes
// come from Go's unicode tables (Unicode 15), Xapian 1.4's from Unicode 9:
// characters assigned since then may differ.

// StemStrategy is Xapian::TermGenerator::stem_strategy.
type StemStrategy int

// The stemming strategies.
const (
	StemSome        StemStrategy = iota // unstemmed terms with positions, "Z"+stem without (Xapian's default)
	StemNone                            // unstemmed terms only
	StemAll                             // stemmed terms only, no prefix (libzim's full-text index)
	StemAllZ                            // stemmed terms only, "Z" prefix
	StemSomeFullPos                     // as StemSome, the stems with positions too
)

// StopStrategy is Xapian::TermGenerator::stop_strategy.
type StopStrategy int

// The stop word strategies.
const (
	StopStemmed StopStrategy = iota // index stop words, but do not stem them (Xapian's default)
	StopNone                        // ignore the stopper
	StopAll                         // drop stop words (libzim's full-text index)
)

// TermGenerator adds the terms of texts to a Document, as
// Xapian::TermGenerator does.
type TermGenerator struct {
	Doc      *Document
	Stemmer  func(word string) string // nil: no stemming
	Strategy StemStrategy
	Stopper  func(word string) bool // nil: no stop words
	StopMode StopStrategy
	// MaxWordLength drops longer words (in bytes; 0 means Xapian's 64).
	MaxWordLength int
	// CJKNgram indexes CJK text as unigrams and bigrams (FLAG_CJK_NGRAM,
	// which libzim 9 sets).
	CJKNgram bool
	pos      uint32
}

// IncreaseTermpos adds delta to the current term position.
func (g *TermGenerator) IncreaseTermpos(delta uint32) { g.pos += delta }

// Termpos returns the current term position.
func (g *TermGenerator) Termpos() uint32 { return g.pos }

// IndexText adds the words of text with positions, each with wdfInc, the
// term names starting with prefix.
func (g *TermGenerator) IndexText(text string, wdfInc uint32, prefix string) {
	g.index(text, wdfInc, prefix, true)
}

// IndexTextWithoutPositions is IndexText without positions.
func (g *TermGenerator) IndexTextWithoutPositions(text string, wdfInc uint32, prefix string) {
	g.index(text, wdfInc, prefix, false)
}

func (g *TermGenerator) index(text string, wdfInc uint32, prefix string, withPositions bool) {
	maxLen := g.MaxWordLength
	if maxLen == 0 {
		maxLen = 64
	}
	stopMode := g.StopMode
	if g.Stopper == nil {
		stopMode = StopNone
	}
	parseTerms(text, g.CJKNgram, func(term string, unigram bool) {
		positional := withPositions && unigram
		if len(term) > maxLen {
			return
		}
		if stopMode == StopAll && g.Stopper(term) {
			return
		}
		s := g.Strategy
		if s == StemSome || s == StemNone || s == StemSomeFullPos {
			if positional {
				g.pos++
				g.Doc.AddPosting(prefix+term, g.pos, wdfInc)
			} else {
				g.Doc.AddTerm(prefix+term, wdfInc)
			}
		}
		if s == StemNone || g.Stemmer == nil {
			return
		}
		if s == StemSome || s == StemSomeFullPos {
			if stopMode == StopStemmed && g.Stopper(term) {
				return
			}
			if !shouldStem(term) {
				return
			}
		}
		stem := g.Stemmer(term)
		if stem == "" {
			return
		}
		var st string
		if s != StemAll {
			st = "Z"
		}
		st += prefix + stem
		if s != StemSome && withPositions {
			if s != StemSomeFullPos {
				g.pos++
			}
			g.Doc.AddPosting(st, g.pos, wdfInc)
		} else {
			g.Doc.AddTerm(st, wdfInc)
		}
	})
}

// shouldStem: stem only words that start with a lowercase, titlecase,
// modifier or other letter.
func shouldStem(term string) bool {
	r, _ := decodeXapian(term)
	if uint32(r) < classRunes {
		return runeClass[r]&classStem != 0
	}
	return unicode.In(r, unicode.Ll, unicode.Lt, unicode.Lm, unicode.Lo)
}

// runeClass caches the classes of the first 256 code points (most text
// is in them), from the same unicode tables.
const classRunes = 256

const (
	classWord  = 1 << iota // isWordchar
	classDigit             // isDigit
	classStem              // shouldStem's letters
)

var runeClass = func() (t [classRunes]uint8) {
	for r := range rune(classRunes) {
		if unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.Pc) {
			t[r] |= classWord
		}
		if unicode.Is(unicode.Nd, r) {
			t[r] |= classDigit
		}
		if unicode.In(r, unicode.Ll, unicode.Lt, unicode.Lm, unicode.Lo) {
			t[r] |= classStem
		}
	}
	return t
}()

// decodeXapian decodes one character as Xapian's Utf8Iterator does:
// invalid, overlong and truncated sequences give their first byte as an
// ISO-8859-1 character; surrogates are decoded like any other value.
func decodeXapian(s string) (rune, int) {
	c := s[0]
	if c < 0xc2 {
		return rune(c), 1
	}
	bad := func(b byte) bool { return b < 0x80 || b >= 0xc0 }
	switch {
	case c < 0xe0:
		if len(s) < 2 || bad(s[1]) {
			return rune(c), 1
		}
		return rune(c&0x1f)<<6 | rune(s[1]&0x3f), 2
	case c < 0xf0:
		if len(s) < 3 || bad(s[1]) || bad(s[2]) || (c == 0xe0 && s[1] < 0xa0) {
			return rune(c), 1
		}
		return rune(c&0x0f)<<12 | rune(s[1]&0x3f)<<6 | rune(s[2]&0x3f), 3
	}
	if c >= 0xf5 || len(s) < 4 || bad(s[1]) || bad(s[2]) || bad(s[3]) ||
		(c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90) {
		return rune(c), 1
	}
	return rune(c&0x07)<<18 | rune(s[1]&0x3f)<<12 | rune(s[2]&0x3f)<<6 | rune(s[3]&0x3f), 4
}

// isWordchar is Xapian::Unicode::is_wordchar.
func isWordchar(r rune) bool {
	if uint32(r) < classRunes {
		return runeClass[r]&classWord != 0
	}
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.Pc)
}

func toLower(r rune) rune { return unicode.ToLower(r) }

func checkWordchar(r rune) rune {
	if uint32(r) < 0x80 {
		if runeClass[r]&classWord == 0 {
			return 0
		}
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return r
	}
	if isWordchar(r) {
		return toLower(r)
	}
	return 0
}

const unicodeIgnore = -1

func checkInfix(r rune) rune {
	switch r {
	case '\'', '&', 0xb7, 0x5f4, 0x2027:
		return r
	case 0x2019, 0x201b:
		return '\''
	}
	if r >= 0x200b && (r <= 0x200d || r == 0x2060 || r == 0xfeff) {
		return unicodeIgnore
	}
	return 0
}

func checkInfixDigit(r rune) rune {
	switch r {
	case ',', '.', ';', 0x037e, 0x0589, 0x060d, 0x07f8, 0x2044, 0xfe10, 0xfe13, 0xfe14:
		return r
	}
	if r >= 0x200b && (r <= 0x200d || r == 0x2060 || r == 0xfeff) {
		return unicodeIgnore
	}
	return 0
}

func isDigit(r rune) bool {
	if uint32(r) < classRunes {
		return runeClass[r]&classDigit != 0
	}
	return unicode.Is(unicode.Nd, r)
}

func checkSuffix(r rune) rune {
	if r == '+' || r == '#' {
		return r
	}
	return 0
}

// appendUTF8 is Unicode::append_utf8 (which, unlike Go, encodes
// surrogates and drops values above 0x1fffff).
func appendUTF8(b []byte, r rune) []byte {
	switch {
	case r < 0x80:
		return append(b, byte(r))
	case r < 0x800:
		return append(b, byte(0xc0|r>>6), byte(0x80|r&0x3f))
	case r < 0x10000:
		return append(b, byte(0xe0|r>>12), byte(0x80|(r>>6)&0x3f), byte(0x80|r&0x3f))
	case r < 0x200000:
		return append(b, byte(0xf0|r>>18), byte(0x80|(r>>12)&0x3f), byte(0x80|(r>>6)&0x3f), byte(0x80|r&0x3f))
	}
	return b
}

// isUnbrokenScript is word-breaker.cc's is_unbroken_script: the CJK
// blocks.
func isUnbrokenScript(r rune) bool {
	if r < 0x2e80 {
		return false
	}
	return (r >= 0x2e80 && r <= 0x2eff) || (r >= 0x3000 && r <= 0x9fff) || (r >= 0xa700 && r <= 0xa71f) ||
		(r >= 0xac00 && r <= 0xd7af) || (r >= 0xf900 && r <= 0xfaff) || (r >= 0xfe30 && r <= 0xfe4f) ||
		(r >= 0xff00 && r <= 0xffef) || (r >= 0x20000 && r <= 0x2a6df) || (r >= 0x2f800 && r <= 0x2fa1f)
}

// runeBufs are parseTerms' rune buffers (emit gets copies: none is kept).
var runeBufs = sync.Pool{New: func() any { return new([]rune) }}

// parseTerms is parse_terms: it calls emit for each term of text in
// order; unigram is false for the bigrams of CJK text (which get no
// position).
func parseTerms(text string, cjk bool, emit func(term string, unigram bool)) {
	// runes of text as Xapian iterates them; end is len(rs)
	bp := runeBufs.Get().(*[]rune)
	rs := (*bp)[:0]
	if cap(rs) < len(text) {
		rs = make([]rune, 0, len(text))
	}
	defer func() {
		if cap(rs) <= 1<<20 {
			*bp = rs[:0]
			runeBufs.Put(bp)
		}
	}()
	for i := 0; i < len(text); {
		r, n := decodeXapian(text[i:])
		rs = append(rs, r)
		i += n
	}
	at := func(i int) rune {
		if i >= len(rs) {
			return -1
		}
		return rs[i]
	}
	i := 0
	var term []byte
	for {
		var ch rune
		for {
			if i >= len(rs) {
				return
			}
			if ch = checkWordchar(rs[i]); ch != 0 {
				break
			}
			i++
		}
		term = term[:0]
		// initials separated by '.' (P.T.O., U.N.C.L.E)
		if r := rs[i]; r < 128 && r >= 'A' && r <= 'Z' {
			p := i
			for {
				term = appendUTF8(term, toLower(rs[p]))
				p++
				if !(p < len(rs) && rs[p] == '.') {
					break
				}
				p++
				if !(p < len(rs) && rs[p] < 128 && rs[p] >= 'A' && rs[p] <= 'Z') {
					break
				}
			}
			if len(term) > 1 && (p >= len(rs) || !isWordchar(rs[p])) {
				i = p
				emit(string(term), true)
				continue
			}
			term = term[:0]
		}
		ended := false
		for {
			if cjk && isUnbrokenScript(rs[i]) && isWordchar(rs[i]) {
				// NgramIterator: c1, c1c2, c2, c2c3, ... cn
				j := i
				for j < len(rs) && isUnbrokenScript(rs[j]) && isWordchar(rs[j]) {
					j++
				}
				for k := i; k < j; k++ {
					emit(string(appendUTF8(nil, rs[k])), true)
					if k+1 < j {
						emit(string(appendUTF8(appendUTF8(nil, rs[k]), rs[k+1])), false)
					}
				}
				i = j
				for {
					if i >= len(rs) {
						return
					}
					if ch = checkWordchar(rs[i]); ch != 0 {
						break
					}
					i++
				}
				continue
			}
			var prev rune
			for {
				term = appendUTF8(term, ch)
				prev = ch
				i++
				if i >= len(rs) || (cjk && isUnbrokenScript(rs[i])) {
					ended = true
					break
				}
				if ch = checkWordchar(rs[i]); ch == 0 {
					break
				}
			}
			if ended {
				break
			}
			next := i + 1
			if next >= len(rs) {
				break
			}
			nextch := checkWordchar(rs[next])
			if nextch == 0 {
				break
			}
			infix := rs[i]
			if isDigit(prev) && isDigit(rs[next]) {
				infix = checkInfixDigit(infix)
			} else {
				infix = checkInfix(infix)
			}
			if infix == 0 {
				break
			}
			if infix != unicodeIgnore {
				term = appendUTF8(term, infix)
			}
			ch = nextch
			i = next
		}
		if !ended {
			l := len(term)
			count := 0
			for {
				c := checkSuffix(at(i))
				if c == 0 {
					break
				}
				count++
				if count > 3 {
					term = term[:l]
					break
				}
				term = appendUTF8(term, c)
				i++
				if i >= len(rs) {
					ended = true
					break
				}
			}
			if !ended && isWordchar(at(i)) {
				term = term[:l]
			}
		}
		emit(string(term), true)
	}
}

// CachedStemmer returns stem with a memo of up to max words (words repeat
// across pages, stemming them is most of indexing's time). The result is
// not safe for concurrent use: one per goroutine.
func CachedStemmer(stem func(string) string, max int) func(string) string {
	memo := make(map[string]string)
	return func(w string) string {
		if s, ok := memo[w]; ok {
			return s
		}
		s := stem(w)
		if len(memo) >= max {
			clear(memo)
		}
		memo[w] = s
		return s
	}
}
