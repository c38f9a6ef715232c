#!/usr/bin/python3
"""Search as libzim's Searcher does (src/search.cpp) with Xapian's own
QueryParser: xaplibzimquery.py DB < queries.json (a JSON list of strings,
already accent-free); default operator AND, English stemmer, STEM_ALL, a
stopper of "the", "a", "of", flags FLAG_CJK_NGRAM. Prints one JSON line per
query: [[docid, weight], ...] best first."""
import json, sys, xapian

db = xapian.Database(sys.argv[1])
qp = xapian.QueryParser()
qp.set_database(db)
qp.set_default_op(xapian.Query.OP_AND)
qp.set_stemmer(xapian.Stem("english"))
qp.set_stemming_strategy(xapian.QueryParser.STEM_ALL)
stopper = xapian.SimpleStopper()
for w in ("the", "a", "of"):
    stopper.add(w)
qp.set_stopper(stopper)
for q in json.load(sys.stdin):
    query = qp.parse_query(q, xapian.QueryParser.FLAG_CJK_NGRAM)
    enq = xapian.Enquire(db)
    enq.set_query(query)
    m = enq.get_mset(0, db.get_doccount() + 1)
    print(json.dumps([[x.docid, x.weight] for x in m]))
