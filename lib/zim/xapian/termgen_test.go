package xapian

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// termgenTexts are texts that walk the corners of Xapian's tokeniser.
var termgenTexts = []string{
	"The quick brown fox jumps over the lazy dog.",
	"Gardening with roses: a gardener's guide to roses.",
	"U.S.A. and P.T.O. and U.N.C.L.E but not U.S.a or A.",
	"AT&T M&S R&D rock'n'roll don't o’clock l'été",
	"C++ C# F#  fish+chips c+++ a++++ x+y",
	"3.14159 1,000,000 12;30 1.2.3 a.b 2.x 10,a",
	"Café au lait, été, naïve, Ærøskøbing, İstanbul, STRASSE, Straße",
	"Ελληνικά κείμενα, Русский текст, עברית, العربية",
	"zero\u200bwidth join\u200dword soft\u00adhyphen nb\u00a0sp",
	"snake_case camelCase kebab-case dotted.name path/to/file",
	"mixed123numbers 123abc ½ ¾ ² Ⅻ",
	"\xff\xfe invalid \xc3 UTF-8 \xe0\x80\x80 overlong \xed\xa0\x80 surrogate caf\xe9",
	"averyveryveryveryveryveryveryveryveryveryveryveryveryverylongword123 short",
	"emoji 😀 smile, math 𝔸𝔹, combining e\u0301 a\u0308",
	"tab\tnew\nline\r\nend... ellipsis—dash – en",
	"",
	"'quoted' \"double\" (paren) [bracket] {brace} <angle>",
	"A. B. C. D.E.F. G",
}

// randomText makes text from a mix of ASCII, punctuation and non-ASCII
// pieces, so the tokeniser meets them in every order.
func randomText(r *rand.Rand) string {
	pieces := []string{"a", "B", "c", "1", "9", ".", ",", ";", "'", "&", "+", "#", "-", "_", " ", " ", "é", "É", "ß", "ø", "·", "\u2019", "\u200b", "Z", "x", "0", "\xff", "ά", "Ж"}
	var b bytes.Buffer
	for n := r.Intn(40); n > 0; n-- {
		b.WriteString(pieces[r.Intn(len(pieces))])
	}
	return b.String()
}

// TestTermGeneratorSameAsXapian: for the texts above and 300 random ones,
// arcport's TermGenerator gives exactly the terms, wdfs and positions of
// Xapian's (no stemmer; positional and non-positional indexing).
func TestTermGeneratorSameAsXapian(t *testing.T) {
	texts := slices.Clone(termgenTexts)
	r := rand.New(rand.NewSource(27))
	for i := 0; i < 300; i++ {
		texts = append(texts, randomText(r))
	}
	compareTermGen(t, texts, func(g *TermGenerator) {}, nil)
}

// TestTermGeneratorStrategies: the stemming and stop word strategies give
// Xapian's terms, with a stand-in stemmer (strip one trailing "s") and a
// stopper of three words on both sides.
func TestTermGeneratorStrategies(t *testing.T) {
	var texts []string
	for _, s := range termgenTexts {
		if utf8.ValidString(s) {
			texts = append(texts, s)
		}
	}
	texts = append(texts, "the roses of the gardens are a delight", "12s 3.14s Éclairs éclairs ßs")
	stem := func(w string) string { return strings.TrimSuffix(w, "s") }
	stop := func(w string) bool { return w == "the" || w == "a" || w == "of" }
	strategies := map[string]StemStrategy{"STEM_SOME": StemSome, "STEM_ALL": StemAll, "STEM_ALL_Z": StemAllZ, "STEM_SOME_FULL_POS": StemSomeFullPos}
	stops := map[string]StopStrategy{"STOP_NONE": StopNone, "STOP_ALL": StopAll, "STOP_STEMMED": StopStemmed}
	for sn, s := range strategies {
		for pn, p := range stops {
			t.Run(sn+"-"+pn, func(t *testing.T) {
				compareTermGen(t, texts, func(g *TermGenerator) {
					g.Stemmer, g.Strategy, g.Stopper, g.StopMode = stem, s, stop, p
				}, []string{sn, pn})
			})
		}
	}
}

// compareTermGen indexes texts with arcport's TermGenerator (set up by
// setup) and with Xapian's (testdata/xaptermgen.py args) and compares.
func compareTermGen(t *testing.T, texts []string, setup func(*TermGenerator), args []string) {
	t.Helper()
	py := needPyXapian(t)
	enc := make([]string, len(texts))
	for i, s := range texts {
		enc[i] = latin1ToKey(s)
	}
	js, _ := json.Marshal(enc)
	cmd := exec.Command(py, append([]string{"testdata/xaptermgen.py"}, args...)...)
	cmd.Stdin = bytes.NewReader(js)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xaptermgen.py: %v", err)
	}
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	if len(lines) != len(texts) {
		t.Fatalf("%d results for %d texts", len(lines), len(texts))
	}
	bad := 0
	for i, text := range texts {
		var want struct {
			Terms   [][3]json.RawMessage `json:"terms"`
			Termpos uint32               `json:"termpos"`
		}
		if err := json.Unmarshal(lines[i], &want); err != nil {
			t.Fatal(err)
		}
		d := NewDocument()
		g := TermGenerator{Doc: d}
		setup(&g)
		g.IndexText(text, 1, "")
		g.IndexTextWithoutPositions(text, 2, "T")
		var names []string
		for n := range d.terms {
			names = append(names, n)
		}
		sort.Strings(names)
		ok := len(names) == len(want.Terms) && g.Termpos() == want.Termpos
		if ok {
			for j, w := range want.Terms {
				var term string
				var wdf uint32
				var pos []uint32
				json.Unmarshal(w[0], &term)
				json.Unmarshal(w[1], &wdf)
				json.Unmarshal(w[2], &pos)
				dt := d.terms[names[j]]
				if names[j] != latin1(term) || dt.wdf != wdf || !slices.Equal(dt.pos, pos) && len(pos)+len(dt.pos) > 0 {
					ok = false
				}
			}
		}
		if !ok {
			bad++
			if bad <= 5 {
				got := []string{}
				for _, n := range names {
					got = append(got, n)
				}
				t.Errorf("text %q:\n got  %q (termpos %d)\n want %s", text, got, g.Termpos(), lines[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d texts differ from Xapian's TermGenerator", bad, len(texts))
	}
}

// TestTermGeneratorRealStemmers: libzim's full-text pipeline - accents
// removed, STEM_ALL, stop words dropped - with StemEnglish and StemFrench
// gives the terms of Xapian's TermGenerator with Xapian's own stemmers.
func TestTermGeneratorRealStemmers(t *testing.T) {
	var texts []string
	for _, s := range termgenTexts {
		if utf8.ValidString(s) {
			texts = append(texts, s, RemoveAccents(s))
		}
	}
	texts = append(texts, "Les jardiniers cultivaient des roses magnifiques dans les jardins",
		"gardening gardens gardeners: the generous communications of nations",
		RemoveAccents("Les élèves étudièrent l'histoire économique française"))
	stop := func(w string) bool { return w == "the" || w == "a" || w == "of" }
	for lang, stem := range map[string]func(string) string{"english": StemEnglish, "french": StemFrench} {
		for sn, s := range map[string]StemStrategy{"STEM_ALL": StemAll, "STEM_SOME": StemSome} {
			t.Run(lang+"-"+sn, func(t *testing.T) {
				compareTermGen(t, texts, func(g *TermGenerator) {
					g.Stemmer, g.Strategy, g.Stopper, g.StopMode = stem, s, stop, StopAll
				}, []string{sn, "STOP_ALL", lang})
			})
		}
	}
}

// TestTermGeneratorCJK: with CJKNgram, CJK runs give Xapian's unigrams
// (with positions) and bigrams (without), around and inside other words.
func TestTermGeneratorCJK(t *testing.T) {
	t.Setenv("ARCPORT_XAPTG_CJK", "1")
	texts := []string{"中文文本 English 日本語のテキスト 한국어 텍스트", "ab&漢字cd 漢a b漢 x漢字", "全角ＡＢＣ１２３ and ｶﾀｶﾅ", "单", "漢字。句読点、と「括弧」", "Café 中国 naïve"}
	r := rand.New(rand.NewSource(9))
	pieces := []string{"中", "文", "日", "本", "한", "국", "の", "。", "a", "B", " ", "&", "1", ".", "é", "ｶ"}
	for i := 0; i < 200; i++ {
		var b strings.Builder
		for n := r.Intn(20); n > 0; n-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		texts = append(texts, b.String())
	}
	compareTermGen(t, texts, func(g *TermGenerator) { g.CJKNgram = true }, nil)
	// xaptermgen.py's stopper knows "the", "a" and "of"
	stop := func(w string) bool { return w == "the" || w == "a" || w == "of" }
	compareTermGen(t, texts, func(g *TermGenerator) {
		g.CJKNgram, g.Stemmer, g.Strategy, g.Stopper, g.StopMode = true, StemEnglish, StemAll, stop, StopAll
	}, []string{"STEM_ALL", "STOP_ALL", "english"})
	compareTermGen(t, texts, func(g *TermGenerator) {
		g.CJKNgram, g.Stemmer, g.Strategy = true, StemEnglish, StemSome
	}, []string{"STEM_SOME", "STOP_NONE", "english"})
}

// TestRuneClassTable: the table of the first code points gives what the
// unicode tables give (the classes of Xapian's is_wordchar, digits, and
// the letters that are stemmed).
func TestRuneClassTable(t *testing.T) {
	for r := rune(-1); r < 0x300; r++ {
		word := unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.Pc)
		if isWordchar(r) != word || isDigit(r) != unicode.Is(unicode.Nd, r) {
			t.Fatalf("U+%04X: isWordchar %v isDigit %v", r, isWordchar(r), isDigit(r))
		}
		want := rune(0)
		if word {
			want = unicode.ToLower(r)
		}
		if got := checkWordchar(r); got != want {
			t.Fatalf("checkWordchar(U+%04X) = %U, want %U", r, got, want)
		}
		if r >= 0 {
			s := string(appendUTF8(nil, r))
			if shouldStem(s) != unicode.In(r, unicode.Ll, unicode.Lt, unicode.Lm, unicode.Lo) {
				t.Fatalf("shouldStem(U+%04X)", r)
			}
		}
	}
}
