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
		// Xapian's OrContext::select_most_frequent: std::nth_element
		// with "greater term frequency first", the first max kept; the
		// terms of equal frequency it keeps are those libstdc++'s
		// introselect leaves in front, so it is followed step by step
		tf := make([]uint32, len(ts))
		idx := make([]int, len(ts))
		for i := range ts {
			tf[i], idx[i] = ts[i].tf, i
		}
		nthElement(idx, max-1, func(a, b int) bool { return tf[a] > tf[b] })
		kept := make([]tfreq, max)
		for i := range kept {
			kept[i] = ts[idx[i]]
		}
		ts = kept
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

// nthElement is libstdc++'s std::nth_element (__introselect: median of
// three moved to the front, unguarded partition, insertion sort of the
// last three or fewer; a heap selection when the depth limit runs out)
// on s with the strict order less.
func nthElement(s []int, nth int, less func(a, b int) bool) {
	first, last := 0, len(s)
	if first == last || nth >= last {
		return
	}
	depth := 0
	for n := last - first; n > 1; n >>= 1 {
		depth++
	}
	depth *= 2
	for last-first > 3 {
		if depth == 0 {
			heapSelect(s[first:last], nth-first+1, less)
			s[first], s[nth] = s[nth], s[first]
			return
		}
		depth--
		cut := partitionPivot(s, first, last, less)
		if cut <= nth {
			first = cut
		} else {
			last = cut
		}
	}
	// insertion sort of s[first:last]
	for i := first + 1; i < last; i++ {
		v := s[i]
		if less(v, s[first]) {
			copy(s[first+1:i+1], s[first:i])
			s[first] = v
			continue
		}
		j := i
		for less(v, s[j-1]) {
			s[j] = s[j-1]
			j--
		}
		s[j] = v
	}
}

func partitionPivot(s []int, first, last int, less func(a, b int) bool) int {
	mid := first + (last-first)/2
	// __move_median_to_first(first, first+1, mid, last-1)
	a, b, c := first+1, mid, last-1
	var m int
	switch {
	case less(s[a], s[b]):
		switch {
		case less(s[b], s[c]):
			m = b
		case less(s[a], s[c]):
			m = c
		default:
			m = a
		}
	case less(s[a], s[c]):
		m = a
	case less(s[b], s[c]):
		m = c
	default:
		m = b
	}
	s[first], s[m] = s[m], s[first]
	// __unguarded_partition(first+1, last, pivot=first)
	lo, hi := first+1, last
	for {
		for less(s[lo], s[first]) {
			lo++
		}
		hi--
		for less(s[first], s[hi]) {
			hi--
		}
		if lo >= hi {
			return lo
		}
		s[lo], s[hi] = s[hi], s[lo]
		lo++
	}
}

// heapSelect is libstdc++'s __heap_select(first, first+middle, last): a
// heap of the first middle elements, each later one that is less than its
// top replacing it.
func heapSelect(s []int, middle int, less func(a, b int) bool) {
	h := s[:middle]
	for i := middle/2 - 1; i >= 0; i-- {
		adjustHeap(h, i, len(h), h[i], less)
	}
	for i := middle; i < len(s); i++ {
		if less(s[i], h[0]) {
			v := s[i]
			s[i] = h[0]
			adjustHeap(h, 0, len(h), v, less)
		}
	}
}

// adjustHeap is libstdc++'s __adjust_heap followed by __push_heap.
func adjustHeap(h []int, hole, n, v int, less func(a, b int) bool) {
	top := hole
	child := hole
	for child < (n-1)/2 {
		child = 2 * (child + 1)
		if less(h[child], h[child-1]) {
			child--
		}
		h[hole] = h[child]
		hole = child
	}
	if n&1 == 0 && child == (n-2)/2 {
		child = 2 * (child + 1)
		h[hole] = h[child-1]
		hole = child - 1
	}
	parent := (hole - 1) / 2
	for hole > top && less(h[parent], v) {
		h[hole] = h[parent]
		hole = parent
		parent = (hole - 1) / 2
	}
	h[hole] = v
}
