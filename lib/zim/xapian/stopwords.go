package xapian

import (
	"embed"
	"strings"
)

// The stop word lists of libzim (static/stopwords/*, identical from
// libzim 7.0 to 9.x; taken from stopwords-iso, MIT licence, see
// stopwords/README.md), which its XapianIndexer reads as the resource
// "stopwords/" + the language given to Creator::configIndexing.
//
//go:embed stopwords/[a-z][a-z]
var stopwordFS embed.FS

// LibzimStopWordsText returns the stop word resource libzim's indexer
// loads for language, exactly as it stores it in the "stopwords" metadata
// of both databases (words one a line, no final newline), or "" when
// libzim has none. The lookup is by that exact name, as libzim does it
// (getResource("stopwords/" + language)): libzim keeps its lists under ISO
// 639-1 codes ("en", "fr"), so the ISO 639-3 code of a ZIM's Language
// metadata ("eng", "fra"), which zimwriterfs and most scrapers pass, finds
// none and libzim indexes without stop words (checked with libzim 8.1.1:
// "en" drops "the", "eng" keeps it; both stem in English).
func LibzimStopWordsText(language string) string {
	if len(language) != 2 || strings.ContainsAny(language, "/.") {
		return ""
	}
	b, err := stopwordFS.ReadFile("stopwords/" + language)
	if err != nil {
		return ""
	}
	return string(b)
}

// LibzimStopWords returns the words of LibzimStopWordsText(language),
// split as libzim splits them (std::getline on '\n'); nil when there are
// none.
func LibzimStopWords(language string) []string {
	return splitStopWords(LibzimStopWordsText(language))
}

// splitStopWords splits text at '\n' as repeated std::getline calls do: a
// final newline gives no empty word.
func splitStopWords(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// StopperOf returns a stopper (Xapian::SimpleStopper) for words, nil when
// there are none.
func StopperOf(words []string) func(string) bool {
	if len(words) == 0 {
		return nil
	}
	set := make(map[string]struct{}, len(words))
	for _, w := range words {
		set[w] = struct{}{}
	}
	return func(w string) bool { _, ok := set[w]; return ok }
}
