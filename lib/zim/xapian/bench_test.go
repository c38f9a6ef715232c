package xapian

import (
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"strings"
	"testing"
)

// benchPages makes n HTML pages of 300 words from a 5000-word vocabulary.
func benchPages(n int) []string {
	r := rand.New(rand.NewSource(1))
	vocab := make([]string, 5000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("word%dx", i)
	}
	pages := make([]string, n)
	for i := range pages {
		var b strings.Builder
		b.WriteString("<html><head><title>Page</title></head><body><p>")
		for j := 0; j < 300; j++ {
			b.WriteString(vocab[int(r.ExpFloat64()*500)%len(vocab)])
			b.WriteByte(' ')
		}
		b.WriteString("</p></body></html>")
		pages[i] = b.String()
	}
	return pages
}

// BenchmarkLibzimFullTextIndex: HTML to a written full-text database, per
// page (parse, accents, terms, stemming, writing).
func BenchmarkLibzimFullTextIndex(b *testing.B) {
	pages := benchPages(2000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w, _ := NewWriter(WriterOptions{NoTermList: true})
		stem := CachedStemmer(StemEnglish, 1<<16)
		for j, p := range pages {
			d, _ := LibzimFullText(fmt.Sprint(j), "Page", p, stem, nil)
			w.Add(d)
		}
		w.WriteTo(io.Discard)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(pages)), "µs/page")
}

// BenchmarkSearchTerms: a two-word AND query on 2000 pages.
func BenchmarkSearchTerms(b *testing.B) {
	w, _ := NewWriter(WriterOptions{NoTermList: true})
	for j, p := range benchPages(2000) {
		d, _ := LibzimFullText(fmt.Sprint(j), "Page", p, StemEnglish, nil)
		w.Add(d)
	}
	var buf bytes.Buffer
	w.WriteTo(&buf)
	db, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := db.SearchTerms([]string{"word1x", "word7x"}, true, 10); err != nil {
			b.Fatal(err)
		}
	}
}

func TestCachedStemmer(t *testing.T) {
	st := CachedStemmer(StemEnglish, 2)
	for _, w := range []string{"gardening", "roses", "gardening", "nations", "roses"} {
		if got, want := st(w), StemEnglish(w); got != want {
			t.Errorf("%q: %q, want %q", w, got, want)
		}
	}
}
