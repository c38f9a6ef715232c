#!/usr/bin/python3
"""Index texts with Xapian's own TermGenerator (python3-xapian):
xaptermgen.py [STRATEGY STOPMODE] < texts.json, a JSON list of strings whose
characters are bytes (Latin-1). For each text, prints one JSON line: the
terms (bytes as Latin-1) with wdf and positions after index_text(text) then
index_text_without_positions(text, 2, "T"). Without arguments there is no
stemmer; with them the stemmer strips one trailing "s" (a stand-in, so the
strategies can be compared without a Snowball stemmer), the stopper knows
"the", "a" and "of", and STRATEGY / STOPMODE name TermGenerator's
(STEM_SOME, STEM_ALL, STEM_ALL_Z, STEM_SOME_FULL_POS; STOP_NONE, STOP_ALL,
STOP_STEMMED). With ARCPORT_XAPTG_CJK=1 in the environment, the term
generator has FLAG_CJK_NGRAM."""
import json, os, sys, xapian

class StripS(xapian.StemImplementation):
    def __call__(self, word):
        s = b"s" if isinstance(word, bytes) else "s"
        return word[:-1] if word.endswith(s) else word
    def get_description(self):
        return "strip-s"

stopper = xapian.SimpleStopper()
for w in ("the", "a", "of"):
    stopper.add(w)
for text in json.load(sys.stdin):
    raw = text.encode("latin-1")
    doc = xapian.Document()
    tg = xapian.TermGenerator()
    tg.set_document(doc)
    if os.environ.get("ARCPORT_XAPTG_CJK"):
        tg.set_flags(xapian.TermGenerator.FLAG_CJK_NGRAM)
    if len(sys.argv) > 2:
        # a third argument names one of Xapian's own stemmers instead
        tg.set_stemmer(xapian.Stem(sys.argv[3]) if len(sys.argv) > 3 else xapian.Stem(StripS()))
        tg.set_stemming_strategy(getattr(xapian.TermGenerator, sys.argv[1]))
        tg.set_stopper(stopper)
        tg.set_stopper_strategy(getattr(xapian.TermGenerator, sys.argv[2]))
    tg.index_text(raw)
    tg.index_text_without_positions(raw, 2, "T")
    terms = [[t.term.decode("latin-1"), t.wdf, list(t.positer)] for t in doc.termlist()]
    print(json.dumps({"terms": terms, "termpos": tg.get_termpos()}))
