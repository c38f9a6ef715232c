#!/usr/bin/python3
"""Rank documents with Xapian's own matcher (python3-xapian, BM25 defaults):
xapsearch.py DB < queries.json, a JSON list of {"terms": [...], "all": bool};
prints one JSON line per query: [[docid, weight], ...] best first."""
import json, sys, xapian

db = xapian.Database(sys.argv[1])
for q in json.load(sys.stdin):
    op = xapian.Query.OP_AND if q["all"] else xapian.Query.OP_OR
    query = xapian.Query(op, [xapian.Query(t.encode("latin-1")) for t in q["terms"]])
    enq = xapian.Enquire(db)
    enq.set_query(query)
    m = enq.get_mset(0, db.get_doccount() + 1)
    print(json.dumps([[x.docid, x.weight] for x in m]))
