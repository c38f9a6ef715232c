package xapian

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// TestStemEnglishSameAsXapian: for every distinct word of Python's
// standard library sources (about 13000) and the stemmer's special cases,
// StemEnglish gives Xapian::Stem("english")'s stem.
func TestStemEnglishSameAsXapian(t *testing.T) {
	compareStemmer(t, "english", StemEnglish, nil)
}

// TestStemFrenchSameAsXapian: StemFrench gives Xapian::Stem("french")'s
// stem for the same words and for French words built from stems and every
// suffix the stemmer knows.
func TestStemFrenchSameAsXapian(t *testing.T) {
	stems := []string{"jard", "chant", "fin", "pari", "col", "tap", "aim", "bel", "nouv", "heureu", "réalis",
		"génér", "commun", "parl", "viv", "qu", "aqu", "ennui", "joy", "pay", "cré", "lou", "gu", "aigu", "ai", "oui",
		"ieu", "été", "élè", "procéd", "complét", "mang", "finiss", "agress", "dramat", "act", "sensib", "possib",
		"chr", "ab", "y", "ay", "ya", "pi", "mét", "bat", "fuy", "crédib", "nation", "éduc", "intens", "compl",
		"pr", "rapid", "dev", "poss", "sérieu", "amour", "élé", "fran", "glaç", "reç", "a", "é", "ou"}
	var sufs []string
	for _, l := range [][]string{frStandard, frIVerb, frVerbDelete, frVerbA} {
		for _, x := range l {
			sufs = append(sufs, strings.ToLower(x))
		}
	}
	sufs = append(sufs, "", "s", "e", "es", "ion", "ions", "sion", "tion", "ier", "ière", "iers", "ë", "guë", "enne", "onne", "ette", "elle", "eille",
		"ic", "ication", "icatrice", "ativement", "ivement", "abilité", "icité", "ivité", "ativité", "icatif", "icative",
		"eusement", "ablement", "iquement", "ièrement", "ement", "issement", "ç", "y", "Y", "amment", "emment", "ment", "ments")
	var words []string
	for _, st := range stems {
		for _, sf := range sufs {
			words = append(words, st+sf)
		}
	}
	compareStemmer(t, "french", StemFrench, words)
}

// compareStemmer stems the standard library's words and extra with
// Xapian's stemmer for lang and with stem, and compares.
func compareStemmer(t *testing.T, lang string, stem func(string) string, extra []string) {
	t.Helper()
	py := needPyXapian(t)
	js, _ := json.Marshal(extra)
	cmd := exec.Command(py, "testdata/xapstem.py", lang)
	cmd.Stdin = bytes.NewReader(js)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xapstem.py: %v", err)
	}
	var want map[string]string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) < 1000 {
		t.Fatalf("only %d words", len(want))
	}
	words := make([]string, 0, len(want))
	for w := range want {
		words = append(words, w)
	}
	sort.Strings(words)
	bad := 0
	for _, w := range words {
		if got := stem(w); got != want[w] {
			bad++
			if bad <= 20 {
				t.Errorf("%s stem of %q = %q, Xapian %q", lang, w, got, want[w])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d words differ", bad, len(words))
	}
	t.Logf("%d words", len(words))
}

// TestStemGermanSameAsXapian: StemGerman gives Xapian::Stem("german")'s
// stem for the standard library's words and German words built from
// stems and the stemmer's suffixes.
func TestStemGermanSameAsXapian(t *testing.T) {
	stems := []string{"haus", "garten", "blum", "schön", "groß", "straß", "fuß", "müll", "bäck", "könig", "zeitung", "freund",
		"bau", "neu", "treu", "bayer", "mayer", "kenn", "lauf", "spiel", "ergebnis", "zeugnis", "wissen", "arbeit", "mensch", "lieb",
		"fröh", "glück", "heil", "ewig", "ab", "a", "be", "erb", "bruder", "ältest", "dunkel", "reich", "kind", "wäsche", "aue", "bauer"}
	sufs := []string{"", "e", "em", "en", "ern", "er", "es", "s", "est", "st", "end", "ung", "ig", "ik", "isch", "lich", "heit", "keit",
		"lichkeit", "igkeit", "igend", "igung", "erlich", "enheit", "nisse", "nissen", "isse", "ste", "sten", "ungen", "ungs", "ers",
		"ische", "ischen", "lichen", "heiten", "keiten", "ß", "ßen", "ies", "iges", "igen"}
	var words []string
	for _, st := range stems {
		for _, sf := range sufs {
			words = append(words, st+sf)
		}
	}
	compareStemmer(t, "german", StemGerman, words)
}

func TestStemmerFor(t *testing.T) {
	for _, tc := range []struct{ lang, in, want string }{
		{"eng", "gardening", "garden"}, {"en", "gardening", "garden"}, {"eng,fra", "gardening", "garden"},
		{"fra", "jardins", "jardin"}, {"de", "gartens", "gart"}, {"deu", "gartens", "gart"}, {"spa", "jardines", "jardin"}, {"rus", "книгами", "книг"}, {"ita", "giardini", "giardin"}, {"por", "cidades", "cidad"},
	} {
		st := StemmerFor(tc.lang)
		if st == nil {
			t.Errorf("StemmerFor(%q) = nil", tc.lang)
			continue
		}
		if got := st(tc.in); got != tc.want {
			t.Errorf("StemmerFor(%q)(%q) = %q, want %q", tc.lang, tc.in, got, tc.want)
		}
	}
	if StemmerFor("xho") != nil {
		t.Error("a stemmer for xho")
	}
}

// TestStemSpanishSameAsXapian: StemSpanish gives Xapian::Stem("spanish")'s
// stem for the standard library's words and Spanish words built from
// stems, verb endings, suffixes and attached pronouns.
func TestStemSpanishSameAsXapian(t *testing.T) {
	stems := []string{"habl", "com", "viv", "cant", "jardin", "flor", "naci", "rapid", "feliz", "constru", "arguy", "segu",
		"pag", "averigu", "lleg", "pregunt", "abr", "a", "o", "e", "aer", "oi", "ciud", "univers", "posib", "actu", "educ",
		"real", "organiz", "ind", "cre", "le", "ley", "hu", "y", "u", "gu", "qu", "distribu", "ámbit", "músic", "árbol"}
	sufs := []string{"", "o", "a", "os", "as", "e", "es", "en", "é", "ó", "í", "á", "ar", "er", "ir", "ando", "iendo", "yendo",
		"ándolo", "iéndola", "arlo", "erse", "irnos", "ándoselos", "iéndome", "yéndose", "ado", "ada", "ido", "idas",
		"aba", "abamos", "ábamos", "aría", "eríamos", "iremos", "ieron", "aron", "ió", "ía", "ían", "ase", "iese",
		"anza", "ico", "icas", "ismo", "able", "ible", "ista", "oso", "amiento", "imiento", "adora", "ación", "aciones",
		"ante", "ancia", "icación", "logía", "ución", "encia", "amente", "ivamente", "osamente", "icamente", "mente",
		"ablemente", "idad", "abilidad", "icidad", "ividad", "iva", "ativo", "ya", "yeron", "yó", "yendo", "ue", "uen",
		"emos", "éis", "guen", "gue", "ués"}
	var words []string
	for _, st := range stems {
		for _, sf := range sufs {
			words = append(words, st+sf)
		}
	}
	compareStemmer(t, "spanish", StemSpanish, words)
}

// TestStemRussianSameAsXapian: StemRussian gives Xapian::Stem("russian")'s
// stem for Russian words built from stems and the stemmer's endings.
func TestStemRussianSameAsXapian(t *testing.T) {
	stems := []string{"книг", "дом", "город", "работ", "красн", "хорош", "говор", "чита", "пис", "делa", "сад", "цвет", "нов",
		"больш", "зна", "люб", "ход", "стро", "мост", "радост", "молод", "сильн", "дума", "смотр", "жи", "бы", "а", "о", "я",
		"вод", "земл", "истори", "армени", "учени", "сем", "стать", "ноч", "друз", "мысл", "бел", "длинн", "странн", "чита", "жела"}
	sufs := []string{"", "а", "ы", "у", "ой", "ою", "е", "ам", "ами", "ах", "ов", "ев", "ей", "ий", "ый", "ая", "ое", "ые", "ого",
		"ему", "ому", "ым", "ими", "ых", "ую", "юю", "яя", "ть", "ла", "ло", "ли", "л", "ет", "ют", "ешь", "ем", "ите", "ила",
		"ыла", "ено", "ены", "ует", "уют", "ить", "ыть", "ишь", "в", "вши", "вшись", "ив", "ивши", "ившись", "ыв", "ывшись",
		"ся", "сь", "лся", "лась", "ется", "ются", "ющий", "ующий", "ивший", "вший", "енный", "нный", "емый", "ость",
		"ости", "остью", "ейший", "ейшая", "ейше", "нно", "нн", "ь", "ью", "ья", "ия", "ие", "ии", "ией", "иями", "иях", "ию",
		"и", "ами", "ями", "ое", "ее"}
	var words []string
	for _, st := range stems {
		for _, sf := range sufs {
			words = append(words, st+sf)
		}
	}
	compareStemmer(t, "russian", StemRussian, words)
}

// TestStemItalianSameAsXapian: StemItalian gives Xapian::Stem("italian")'s
// stem for the standard library's words and Italian words built from
// stems, endings and attached pronouns.
func TestStemItalianSameAsXapian(t *testing.T) {
	stems := []string{"parl", "mangi", "cant", "giardin", "fior", "nazion", "rapid", "felic", "costru", "segu", "pag", "qu", "acqu",
		"cuor", "guard", "abit", "a", "o", "e", "aiu", "noi", "citt", "univers", "possib", "attu", "educ", "real", "organizz",
		"bianc", "lung", "amic", "banc", "pesc", "lag", "fuoc", "gioi", "buo", "pia"}
	sufs := []string{"", "o", "a", "i", "e", "à", "è", "ì", "ò", "ù", "á", "é", "í", "ó", "ú", "are", "ere", "ire", "ando", "endo",
		"andolo", "endogli", "arlo", "erla", "irsi", "arsene", "andomela", "ato", "ata", "iti", "ute", "ava", "avamo", "eranno",
		"irebbero", "isco", "iscono", "iamo", "ammo", "anza", "ico", "iche", "ichi", "ismo", "abile", "ibile", "ista", "istà",
		"oso", "mente", "atrice", "ante", "azione", "icazione", "atore", "logia", "uzione", "usione", "enza", "amento", "imento",
		"amente", "ivamente", "osamente", "icamente", "abilmente", "ità", "abilità", "icità", "ività", "ivo", "ativo", "icativo",
		"he", "hi", "ie", "io", "ia", "ii", "ar", "ir", "ono", "uto", "ci", "gli", "ne", "mi", "ti", "vi", "lo"}
	var words []string
	for _, st := range stems {
		for _, sf := range sufs {
			words = append(words, st+sf)
		}
	}
	compareStemmer(t, "italian", StemItalian, words)
}

// TestStemPortugueseSameAsXapian: StemPortuguese gives
// Xapian::Stem("portuguese")'s stem for the standard library's words and
// Portuguese words built from stems and endings.
func TestStemPortugueseSameAsXapian(t *testing.T) {
	stems := []string{"fal", "com", "viv", "cant", "jardin", "flor", "naç", "rapid", "feliz", "constru", "segu", "pag", "averigu",
		"cheg", "pergunt", "abr", "a", "o", "e", "cidad", "univers", "possív", "atu", "educ", "real", "organiz", "bem", "mãe", "irm",
		"pão", "alem", "ling", "pic", "port", "carr", "beir", "madeir", "cadeir", "brasil"}
	sufs := []string{"", "o", "a", "os", "as", "e", "es", "é", "ê", "ó", "í", "á", "ão", "ões", "ãe", "ar", "er", "ir", "ando", "endo",
		"indo", "ado", "ada", "ido", "idas", "ava", "ávamos", "aria", "eríamos", "iremos", "aram", "eram", "ou", "eu", "iu", "asse",
		"êssemos", "eza", "ico", "icas", "ismo", "ável", "ível", "ista", "oso", "amento", "imento", "adora", "ação", "ações",
		"ante", "ância", "logía", "ución", "ência", "amente", "ivamente", "osamente", "icamente", "mente", "avelmente",
		"idade", "abilidade", "icidade", "ividade", "iva", "ativo", "ira", "eira", "eiras", "iras", "ci", "ice", "gue", "ça", "ço",
		"ç", "que", "qui"}
	var words []string
	for _, st := range stems {
		for _, sf := range sufs {
			words = append(words, st+sf)
		}
	}
	compareStemmer(t, "portuguese", StemPortuguese, words)
}
