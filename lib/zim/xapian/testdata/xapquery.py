#!/usr/bin/python3
"""Run queries with Xapian's own matcher (python3-xapian): xapquery.py DB Q...
Each Q is parsed by Xapian::QueryParser (no stemmer, default flags plus
phrases); prints one JSON line per query with all matching docids in rank
order, their data and weights, and Xapian's estimated match count."""
import json, sys, xapian

db = xapian.Database(sys.argv[1])
qp = xapian.QueryParser()
qp.set_database(db)
for q in sys.argv[2:]:
    query = qp.parse_query(q, xapian.QueryParser.FLAG_DEFAULT | xapian.QueryParser.FLAG_PHRASE)
    enq = xapian.Enquire(db)
    enq.set_query(query)
    m = enq.get_mset(0, db.get_doccount() + 1)
    print(json.dumps({"query": q, "docids": [x.docid for x in m], "estimate": m.get_matches_estimated(),
                      "data": [x.document.get_data().decode("latin-1") for x in m],
                      "weights": [round(x.weight, 9) for x in m]}))
