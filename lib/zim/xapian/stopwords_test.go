package xapian

import (
	"strings"
	"testing"
)

// TestLibzimStopWords: the lists are looked up by the exact name libzim
// uses; the ISO 639-3 codes of ZIM metadata find none, as in libzim.
func TestLibzimStopWords(t *testing.T) {
	for _, lang := range []string{"eng", "fra", "", "e", "../en", "README.md", "EN", "xx"} {
		if s := LibzimStopWordsText(lang); s != "" {
			t.Errorf("LibzimStopWordsText(%q) = %d bytes, want none", lang, len(s))
		}
	}
	for lang, want := range map[string]string{"en": "the", "fr": "les", "de": "und", "ru": "и", "zh": "的"} {
		words := LibzimStopWords(lang)
		stop := StopperOf(words)
		if stop == nil || !stop(want) || stop("arcport") {
			t.Errorf("%s: %d words, %q not a stop word", lang, len(words), want)
		}
		if text := LibzimStopWordsText(lang); strings.Join(words, "\n") != text || strings.HasSuffix(text, "\n") {
			t.Errorf("%s: the words do not join back into the text", lang)
		}
	}
	if n := len(LibzimStopWords("en")); n != 1298 {
		t.Errorf("en: %d words, libzim's list has 1298", n)
	}
	if StopperOf(nil) != nil {
		t.Error("StopperOf(nil) != nil")
	}
}
