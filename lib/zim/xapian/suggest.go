package xapian

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Suggestion is one title a suggestion search found.
type Suggestion struct {
	DocID  uint32
	Weight float64
	Data   string // the document's data: "C/" + path in libzim's title index
	Title  string // the title value (slot "title" of the valuesmap)
}

// BM25 parameters libzim's SuggestionSearch sets for the title index
// (suggestion.cpp: Xapian::BM25Weight(0.001, 0, 1, 1, 0.5)): the wdf
// barely counts, document lengths are fully normalised.
const (
	suggestK1         = 0.001
	suggestB          = 1
	suggestMinNormlen = 0.5
	// maxPartialExpansion is QueryParser's default limit on the terms a
	// partial word expands to (the most frequent ones).
	maxPartialExpansion = 100
)

// ValuesMap parses the "valuesmap" metadata libzim writes ("title:0;
// targetPath:1"): value names to slots.
func ValuesMap(s string) map[string]uint32 {
	m := map[string]uint32{}
	for _, kv := range strings.Split(s, ";") {
		k, v, ok := strings.Cut(kv, ":")
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 32)
		if err == nil {
			m[strings.TrimSpace(k)] = uint32(n)
		}
	}
	return m
}

// suggestLeaf is one weighted leaf of the suggestion query: a term, or a
// synonym of several (a partial word's expansion).
type suggestLeaf struct {
	terms []string
	wdf   map[uint32]uint32 // document -> wdf (summed over a synonym's terms)
	tw    float64           // BM25 term weight
}

// Suggest runs query on a title index as libzim's SuggestionSearch does
// (suggestion.cpp, SuggestionDataBase::parseQuery and getEnquire, with
// Xapian 1.4's QueryParser and BM25Weight):
//
//	OR( AND(word1 ... partial last word),        STEM_SOME, FLAG_PARTIAL
//	    PHRASE(word1 ... wordN),                 unstemmed, window N
//	    PHRASE(0posanchor word1 ... wordN) )     unstemmed: titles starting so
//
// where a word other than the last is its stem ("Z" + stem when stem is
// not nil and the word starts with a letter) and the last one, unless the
// query ends with a space, is the synonym of up to 100 of the most frequent
// terms it starts OR its stem. The query is first stripped of its accents.
// Weights are BM25 with k1 0.001, b 1 (each leaf weighted on its own, a
// synonym with its terms' wdfs summed and its term frequency estimated as
// Xapian's OR does), summed over the leaves a title matches; results are
// sorted by weight, then by the title value, then by docid, and collapsed
// on the targetPath value (one title per target). limit 0: all.
func (db *DB) Suggest(query string, stem func(string) string, limit int) ([]Suggestion, error) {
	b, err := db.Metadata("valuesmap")
	if err != nil {
		return nil, err
	}
	vm := ValuesMap(string(b))
	q := RemoveAccents(query)
	words := LibzimQueryTerms(q, nil, nil)
	if strings.TrimSpace(q) == "" || db.stats.DocCount == 0 {
		return nil, nil
	}
	var andLeaves [][]*suggestLeaf // per word: the leaves of which any matches (OR)
	var phrases [][]string
	if len(words) == 0 {
		// only punctuation: libzim asks for the terms the query starts
		l, err := db.expand(q, 0)
		if err != nil {
			return nil, err
		}
		andLeaves = [][]*suggestLeaf{{l}}
	} else {
		partial := !strings.HasSuffix(query, " ") && !strings.HasSuffix(query, "\t")
		for i, w := range words {
			var alts []*suggestLeaf
			if i == len(words)-1 && partial {
				l, err := db.expand(w, maxPartialExpansion)
				if err != nil {
					return nil, err
				}
				alts = append(alts, l)
			}
			l, err := db.termLeaf(stemSome(w, stem))
			if err != nil {
				return nil, err
			}
			alts = append(alts, l)
			andLeaves = append(andLeaves, alts)
		}
		phrases = append(phrases, words, append([]string{AnchorTerm}, words...))
	}
	weights := map[uint32]float64{}
	// AND part: every word matches (through any of its leaves)
	var cand map[uint32]bool
	for _, alts := range andLeaves {
		docs := map[uint32]bool{}
		for _, l := range alts {
			for did := range l.wdf {
				if cand == nil || cand[did] {
					docs[did] = true
				}
			}
		}
		cand = docs
	}
	for did := range cand {
		for _, alts := range andLeaves {
			for _, l := range alts {
				if _, ok := l.wdf[did]; ok {
					w, err := db.leafWeight(l, did)
					if err != nil {
						return nil, err
					}
					weights[did] += w
				}
			}
		}
	}
	// phrase parts
	for _, ph := range phrases {
		leaves := make([]*suggestLeaf, len(ph))
		for i, t := range ph {
			l, err := db.termLeaf(t)
			if err != nil {
				return nil, err
			}
			leaves[i] = l
		}
		for did := range leaves[0].wdf {
			all := true
			for _, l := range leaves[1:] {
				if _, ok := l.wdf[did]; !ok {
					all = false
					break
				}
			}
			if !all {
				continue
			}
			if len(ph) > 1 {
				ok, err := db.phraseAt(did, ph)
				if err != nil {
					return nil, err
				}
				if !ok {
					continue
				}
			}
			for _, l := range leaves {
				w, err := db.leafWeight(l, did)
				if err != nil {
					return nil, err
				}
				weights[did] += w
			}
		}
	}
	res := make([]Suggestion, 0, len(weights))
	titleSlot, hasTitle := vm["title"]
	for did, w := range weights {
		s := Suggestion{DocID: did, Weight: w}
		if hasTitle {
			v, err := db.Value(did, titleSlot)
			if err != nil {
				return nil, err
			}
			s.Title = string(v)
		}
		res = append(res, s)
	}
	sort.Slice(res, func(i, j int) bool {
		if res[i].Weight != res[j].Weight {
			return res[i].Weight > res[j].Weight
		}
		if hasTitle && res[i].Title != res[j].Title {
			return res[i].Title < res[j].Title
		}
		return res[i].DocID < res[j].DocID
	})
	out := res[:0]
	seen := map[string]bool{}
	targetSlot, collapse := vm["targetPath"]
	for _, s := range res {
		if collapse {
			v, err := db.Value(s.DocID, targetSlot)
			if err != nil {
				return nil, err
			}
			if len(v) > 0 {
				if seen[string(v)] {
					continue
				}
				seen[string(v)] = true
			}
		}
		d, err := db.DocData(s.DocID)
		if err != nil {
			return nil, err
		}
		s.Data = string(d)
		out = append(out, s)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out, nil
}

// stemSome is a word as QueryParser's STEM_SOME makes it: "Z" + its stem
// when a stemmer is set and the word starts with a letter (Xapian's
// should_stem), else the word.
func stemSome(w string, stem func(string) string) string {
	if stem == nil {
		return w
	}
	r, _ := utf8.DecodeRuneInString(w)
	if !unicode.In(r, unicode.Ll, unicode.Lt, unicode.Lm, unicode.Lo) {
		return w
	}
	return "Z" + stem(w)
}

// termLeaf is the leaf of one term with its postings.
func (db *DB) termLeaf(term string) (*suggestLeaf, error) {
	l := &suggestLeaf{terms: []string{term}, wdf: map[uint32]uint32{}}
	tf, _, err := db.TermFreq(term)
	if err != nil {
		return nil, err
	}
	if err := db.ScanPostings(term, func(p Posting) bool { l.wdf[p.DocID] += p.WDF; return true }); err != nil {
		return nil, err
	}
	l.tw = db.suggestTermWeight(float64(tf))
	return l, nil
}

// expand is the synonym of the terms starting with prefix (at most max of
// the most frequent, 0: all), its term frequency estimated as Xapian's
// OrPostList does, the least frequent terms combined first.
func (db *DB) expand(prefix string, max int) (*suggestLeaf, error) {
	type tfreq struct {
		term string
		tf   uint32
	}
	var ts []tfreq
	if prefix == "" {
		return &suggestLeaf{wdf: map[uint32]uint32{}}, nil
	}
	if err := db.AllTerms(prefix, func(term string, tf uint32, _ uint64) bool {
		ts = append(ts, tfreq{term, tf})
		return true
	}); err != nil {
		return nil, err
	}
	if max > 0 && len(ts) > max {
		sort.SliceStable(ts, func(i, j int) bool { return ts[i].tf > ts[j].tf })
		ts = ts[:max]
	}
	l := &suggestLeaf{wdf: map[uint32]uint32{}}
	tfs := make([]float64, 0, len(ts))
	for _, t := range ts {
		l.terms = append(l.terms, t.term)
		if err := db.ScanPostings(t.term, func(p Posting) bool { l.wdf[p.DocID] += p.WDF; return true }); err != nil {
			return nil, err
		}
		tfs = append(tfs, float64(t.tf))
	}
	if len(tfs) == 0 {
		return l, nil
	}
	N := float64(db.stats.DocCount)
	sort.Float64s(tfs)
	for len(tfs) > 1 {
		a, b := tfs[0], tfs[1]
		est := math.Floor(a + b - a*b/N + 0.5)
		tfs = append(tfs[2:], est)
		sort.Float64s(tfs)
	}
	l.tw = db.suggestTermWeight(tfs[0])
	return l, nil
}

// suggestTermWeight is BM25Weight::init's term weight for a term of term
// frequency tf, wqf 1, k1 suggestK1.
func (db *DB) suggestTermWeight(tf float64) float64 {
	N := float64(db.stats.DocCount)
	tw := (N - tf + 0.5) / (tf + 0.5)
	if tw < 2 {
		tw = tw*0.5 + 1
	}
	return math.Log(tw) * (suggestK1 + 1)
}

// leafWeight is BM25Weight::get_sumpart of leaf l for document did.
func (db *DB) leafWeight(l *suggestLeaf, did uint32) (float64, error) {
	wdf := l.wdf[did]
	n, ok, err := db.DocLength(did)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, corrupt("posting in document %d, which has no length", did)
	}
	if wdf > n {
		wdf = n // a synonym's wdf is capped at the document length
	}
	lenFactor := 0.0
	if db.stats.DocCount > 0 && db.stats.TotalDocLen > 0 {
		lenFactor = float64(db.stats.DocCount) / float64(db.stats.TotalDocLen)
	}
	normlen := math.Max(float64(n)*lenFactor, suggestMinNormlen)
	w := float64(wdf)
	return l.tw * (w / (suggestK1*(normlen*suggestB+(1-suggestB)) + w)), nil
}

// phraseAt reports whether the terms appear in document did at
// consecutive positions, in order (OP_PHRASE with a window of their
// number).
func (db *DB) phraseAt(did uint32, terms []string) (bool, error) {
	pos := make([]map[uint32]bool, len(terms))
	first, err := db.Positions(did, terms[0])
	if err != nil {
		return false, err
	}
	for i, t := range terms[1:] {
		ps, err := db.Positions(did, t)
		if err != nil {
			return false, err
		}
		pos[i+1] = make(map[uint32]bool, len(ps))
		for _, p := range ps {
			pos[i+1][p] = true
		}
	}
next:
	for _, p := range first {
		for i := 1; i < len(terms); i++ {
			if !pos[i][p+uint32(i)] {
				continue next
			}
		}
		return true, nil
	}
	return false, nil
}
