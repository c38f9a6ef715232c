package xapian

import (
	"math"
	"sort"
)

// Result is one document a search found.
type Result struct {
	DocID  uint32
	Weight float64
}

// BM25 parameters of Xapian::BM25Weight's defaults (weight/bm25weight.cc),
// which libzim's searches use.
const (
	bm25K1         = 1.0
	bm25B          = 0.5
	bm25MinNormlen = 0.5
)

// SearchTerms ranks the documents that hold every term (all) or any of
// them by Xapian's BM25 weighting with its default parameters, best first
// and, for equal weights, by docid, as Xapian::Enquire does; at most limit
// results (0: all). A term given n times counts n times, as n leaves of
// Xapian's OP_AND / OP_OR do.
func (db *DB) SearchTerms(terms []string, all bool, limit int) ([]Result, error) {
	st := db.stats
	if st.DocCount == 0 || len(terms) == 0 {
		return nil, nil
	}
	wqf := map[string]int{}
	var uniq []string
	for _, t := range terms {
		if wqf[t] == 0 {
			uniq = append(uniq, t)
		}
		wqf[t]++
	}
	N := float64(st.DocCount)
	lenFactor := 0.0
	if avlen := float64(st.TotalDocLen) / N; avlen != 0 {
		lenFactor = 1 / avlen
	}
	weights := map[uint32]float64{}
	hits := map[uint32]int{}
	for _, t := range uniq {
		tf, _, err := db.TermFreq(t)
		if err != nil {
			return nil, err
		}
		if tf == 0 {
			if all {
				return nil, nil
			}
			continue
		}
		tw := (N - float64(tf) + 0.5) / (float64(tf) + 0.5)
		if tw < 2 {
			tw = tw*0.5 + 1
		}
		// each occurrence of a term in the query is a leaf weighted on its
		// own (wqf 1, so the k3 factor is 1), as Xapian weights OP_AND and
		// OP_OR of term queries
		termweight := math.Log(tw) * (bm25K1 + 1) * float64(wqf[t])
		lens, err := db.docLengths()
		if err != nil {
			return nil, err
		}
		var ferr error
		err = db.ScanPostings(t, func(p Posting) bool {
			var n uint32
			var ok bool
			var err error
			if lens != nil {
				if p.DocID < uint32(len(lens)) && lens[p.DocID] != noDoc {
					n, ok = lens[p.DocID], true
				}
			} else {
				n, ok, err = db.DocLength(p.DocID)
			}
			if err != nil || !ok {
				ferr = err
				if err == nil {
					ferr = corrupt("posting for %q in document %d, which has no length", t, p.DocID)
				}
				return false
			}
			normlen := math.Max(float64(n)*lenFactor, bm25MinNormlen)
			wdf := float64(p.WDF)
			weights[p.DocID] += termweight * (wdf / (bm25K1*(normlen*bm25B+(1-bm25B)) + wdf))
			hits[p.DocID]++
			return true
		})
		if err == nil {
			err = ferr
		}
		if err != nil {
			return nil, err
		}
	}
	res := make([]Result, 0, len(weights))
	for did, w := range weights {
		if all && hits[did] != len(uniq) {
			continue
		}
		res = append(res, Result{did, w})
	}
	sort.Slice(res, func(i, j int) bool {
		if res[i].Weight != res[j].Weight {
			return res[i].Weight > res[j].Weight
		}
		return res[i].DocID < res[j].DocID
	})
	if limit > 0 && len(res) > limit {
		res = res[:limit]
	}
	return res, nil
}

// LibzimQueryTerms turns a user's query into terms as libzim's searcher
// does for plain words (search.cpp: accents removed, Xapian's QueryParser
// with STEM_ALL, the database's stop words, default operator AND): the
// words, lowercased, stop words dropped unless nothing else is left, each
// stemmed when stem is not nil. QueryParser's operators, phrases and CJK
// handling are not reproduced: libzim parses with FLAG_CJK_NGRAM only, so
// "AND", "OR", quotes and "-" are not operators there either, but
// QueryParser still joins hyphenated and CJK words into phrases.
func LibzimQueryTerms(query string, stem func(string) string, stop func(string) bool) []string {
	var words []string
	parseTerms(RemoveAccents(query), false, func(term string, _ bool) {
		words = append(words, term)
	})
	kept := words[:0:0]
	for _, w := range words {
		if stop == nil || !stop(w) {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 {
		kept = words
	}
	out := make([]string, 0, len(kept))
	for _, w := range kept {
		if stem != nil {
			if s := stem(w); s != "" {
				w = s
			}
		}
		out = append(out, w)
	}
	return out
}

// noDoc marks a docid without a document in the doclen cache.
const noDoc = ^uint32(0)

// maxDoclenCache bounds the docid range whose lengths SearchTerms keeps
// in memory (4 bytes each); beyond it, or beyond the file's size in bytes
// (a damaged header's last docid), each length is looked up.
const maxDoclenCache = 1 << 24

// docLengths returns every document's length indexed by docid (noDoc
// where there is none), read once; nil when the docids run too high.
func (db *DB) docLengths() ([]uint32, error) {
	if db.doclens != nil || db.stats.LastDocID >= maxDoclenCache || int64(db.stats.LastDocID) > db.size {
		return db.doclens, nil
	}
	lens := make([]uint32, db.stats.LastDocID+1)
	for i := range lens {
		lens[i] = noDoc
	}
	err := db.ScanPostings("", func(p Posting) bool {
		if p.DocID >= uint32(len(lens)) {
			return false
		}
		lens[p.DocID] = p.WDF
		return true
	})
	if err != nil {
		return nil, err
	}
	db.doclens = lens
	return lens, nil
}
